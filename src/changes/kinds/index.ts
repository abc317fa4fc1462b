import { inApp } from '../../replies/sentences.ts';
import type { Change } from '../change.ts';
import { containmentKind } from './containment.ts';
import { groupMemberKind } from './group-member.ts';
import type { Kind } from './kind.ts';
import { messageDeletionKind } from './message-deletion.ts';
import { moderationKind } from './moderation.ts';
import { permissionsKind } from './permissions.ts';
import { roleKind } from './role.ts';
import { ruleKind } from './rule.ts';
import { scopePermissionsKind } from './scope-permissions.ts';
import { sessionsKind } from './sessions.ts';
import { userKind } from './user.ts';

// Where the kinds of change differ, and only there: what each sends, how "is it still as it was
// reviewed?" is asked of it, what it acts on and did, in words. Everything else about a change is
// the road's, the same for every kind. The one switch over the union is here.

export type { ChangeClient, Kind, Reads, RecordFacts, Sent, SinceReview } from './kind.ts';

/** The kind of `change`, bound to it. */
export function kindOf(change: Change): Kind {
  switch (change.kind) {
    case 'permissions':
      return permissionsKind(change);
    case 'role':
      return roleKind(change);
    case 'user-role':
    case 'account':
      return userKind(change);
    case 'moderation':
      return moderationKind(change);
    case 'rule':
      return ruleKind(change);
    case 'containment':
      return containmentKind(change);
    case 'message-deletion':
      return messageDeletionKind(change);
    case 'sessions':
      return sessionsKind(change);
    case 'scope-permissions':
      return scopePermissionsKind(change);
    case 'group-member':
      return groupMemberKind(change);
  }
}

/** What `change` acts on, in words, with its app when several are configured. */
export function nameOf(change: Change, appName?: string): string {
  return `${kindOf(change).name}${inApp(appName)}`;
}
