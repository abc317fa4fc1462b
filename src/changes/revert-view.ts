import type { Button, View } from '@slack/types';
import type { ValueWriter } from '../apps/apps.ts';
import { type Catalogue, holdsRoleIds, SHIPPED_CATALOGUE } from '../cometchat/catalogue.ts';
import type { PermissionValue } from '../cometchat/schemas.ts';
import { permissionKeyText } from '../replies/permission-key-text.ts';
import { permissionValueText } from '../replies/permission-value-text.ts';
import { counted, inApp, roleHoldersSentence } from '../replies/sentences.ts';
import { button } from '../slack/blocks.ts';
import { ACTIONS } from '../slack/ids.ts';
import { code, escapeMrkdwn, slackDate, truncate } from '../slack/mrkdwn.ts';
import type { AuditRecord } from '../store/store.ts';
import { type Change, changeRecord, METADATA_LIMIT, ROLE_FIELDS } from './change.ts';
import { containmentSteps } from './containment-view.ts';
import { contains, revertibleAnyway } from './kinds/containment.ts';
import { kickIrreversible } from './kinds/group-member.ts';
import { deletionIrreversible } from './kinds/message-deletion.ts';
import { DECISION_WORDS, moderationIrreversible } from './kinds/moderation.ts';
import { roleChangeLines } from './kinds/role.ts';
import { fieldValueText, RULE_FIELDS, ruleChangeLines } from './kinds/rule-fields.ts';
import { scopeName } from './kinds/scope-permissions.ts';
import { sessionsIrreversible } from './kinds/sessions.ts';
import type { Gap, Revert } from './revert.ts';
import { subjectReviewView } from './review.ts';
import { changeLine, messageView } from './views.ts';

// What a revert looks like: the _Revert_ button every applied record carries, and the review of
// the change that puts it back (what it sets, what changed since the record, what cannot be put
// back, who to move back). Pure.

/** The title of every modal of a revert. */
export const REVERT_TITLE = 'Revert a change';

/** How many of the users a deletion moved to `default` the review names. */
const NAMED_TO_MOVE = 20;

/**
 * An applied record's _Revert_ (`label`: "Revert", or with its ref where several share a list);
 * none for a record that failed or whose outcome is unknown: there is nothing to put back.
 */
export function revertButton(
  write: ValueWriter,
  record: Pick<AuditRecord, 'ref' | 'outcome' | 'subject' | 'changes' | 'steps'>,
  label = 'Revert',
): Button | undefined {
  if (record.outcome !== 'applied' && !revertibleAnyway(record)) return undefined;
  // Records removed for retention are gone: nothing was sent to CometChat, nothing to put back.
  if (record.subject?.kind === 'retention') return undefined;
  if (moderationIrreversible(record)) return undefined;
  // A containment's revert (a release) is not put back: the user is contained again instead.
  if (record.subject?.kind === 'containment' && !contains(record)) return undefined;
  if (deletionIrreversible(record)) return undefined;
  if (sessionsIrreversible(record)) return undefined;
  if (kickIrreversible(record)) return undefined;
  return button(label, `${ACTIONS.revertChange}:${record.ref}`, write({ revert: record.ref }));
}

type Reverting = Extract<Revert, { kind: 'revert' }>;

/** Where the review is shown: how its metadata is written, the app, and its approvals. */
export interface RevertTarget {
  write: ValueWriter;
  appName?: string | undefined;
  approvalChannel?: string | undefined;
  catalogue?: Catalogue | undefined;
}

/** The review of a revert: the same callback, and so the same road, as any change's. */
export function revertReviewView(
  record: AuditRecord,
  revert: Reverting,
  target: RevertTarget,
): View {
  const { change } = revert;
  const metadata = target.write(changeRecord(change));
  if (metadata.length > METADATA_LIMIT) {
    return messageView(
      REVERT_TITLE,
      `This revert is too large to carry through Slack in one review; nothing was sent. Create the role with \`/cometchat role create ${change.role} <name>\`, then set its permissions in the editor.`,
    );
  }
  return subjectReviewView({
    title: REVERT_TITLE,
    question: revertQuestion(record, revert, target.appName),
    details: revertLines(revert, target.catalogue),
    note: `What is there now is read again when the revert is sent: if it changed meanwhile, nothing is sent. Its record names the one it reverts (${code(record.ref)}).`,
    privateMetadata: metadata,
    approvalChannel: target.approvalChannel,
  });
}

/** "Revert the change `ref` (…): give `ana` the role `vip` again?" Pure. */
export function revertQuestion(
  record: Pick<AuditRecord, 'ref' | 'at' | 'userId'>,
  revert: Reverting,
  appName?: string,
): string {
  const when = slackDate(Math.floor(record.at / 1000));
  const which = `the change ${code(record.ref)} (${when}, by <@${record.userId}>)${inApp(appName)}`;
  const holders =
    revert.change.kind === 'role' && revert.change.action === 'delete'
      ? ` ${roleHoldersSentence(revert.holders)} Deleting it leaves them with \`default\`.`
      : '';
  return `Revert ${which}: ${inverseWords(revert.change)}?${holders}`;
}

/** What the inverse does, as a verb phrase. Pure. */
function inverseWords(change: Change): string {
  const target = code(change.role);
  const after = String(change.changes[0]?.after);
  switch (change.kind) {
    case 'permissions':
      return `set ${counted(change.changes.length, 'key')} of ${target} back`;
    case 'user-role':
      return `give ${code(change.uid)} the role ${code(after)} again`;
    case 'account':
      return `${after === 'active' ? 'reactivate' : 'deactivate'} ${code(change.uid)} again`;
    case 'role':
      return {
        create: `create role ${target} again`,
        update: `put back the name or description of ${target}`,
        delete: `delete role ${target}, which it created`,
      }[change.action];
    case 'moderation':
      return `mark message ${code(change.messageId)} ${DECISION_WORDS[change.changes[0]?.after === 'approved' ? 'approved' : 'disapproved']} instead`;
    case 'rule':
      return `put the rule ${target} back as it was before`;
    case 'containment':
      return `release ${code(change.uid)}: reactivate the account, then lift the bans it made`;
    case 'message-deletion':
      // Never reached: revertOf offers no inverse of a deletion (deletionIrreversible).
      return `bring back ${counted(change.changes.length, 'message')} of ${code(change.sender)}`;
    // Never asked: revertOf offers no revert of revoked sessions (SESSIONS_NO_REVERT).
    case 'sessions':
      return `revoke sessions of ${code(change.uid)} again`;
    case 'scope-permissions':
      return `set ${counted(change.changes.length, 'key')} of the ${scopeName(change)} back`;
    case 'group-member':
      return memberInverseWords(change.guid, change.uid, change.changes[0]);
  }
}

/** What the inverse of a change of a group's member does, as a verb phrase. Pure. */
function memberInverseWords(
  guid: string,
  uid: string,
  one: { key: string; after: PermissionValue } | undefined,
): string {
  const who = `${code(uid)} in group ${code(guid)}`;
  if (one?.key === 'scope') return `give ${who} the scope ${code(String(one.after))} again`;
  // Never asked: revertOf offers no revert of a kick (KICK_NO_REVERT).
  if (one?.key === 'membership') return `add ${who} back`;
  return one?.after === 'banned' ? `ban ${who} again` : `lift the ban of ${who}`;
}

/**
 * The review's lines: each key from what is there now to what the revert sets; then what changed
 * since the record; what cannot be put back; and for a deletion put back, who to move back. Pure.
 */
export function revertLines(revert: Reverting, catalogue: Catalogue = SHIPPED_CATALOGUE): string[] {
  const { change } = revert;
  const keys =
    change.kind === 'role'
      ? roleChangeLines(change.changes)
      : change.kind === 'rule'
        ? ruleChangeLines(change.changes)
        : change.kind === 'containment'
          ? containmentSteps(change)
          : change.changes.map((c) => changeLine(c, change.kind, catalogue));
  const target = (key: string) => change.changes.find((c) => c.key === key)?.after ?? null;
  const value = (key: string, v: PermissionValue | undefined) =>
    valueText(change.kind, key, v, catalogue);
  const since = revert.since.map(
    (s) =>
      `${keyText(change.kind, s.key, catalogue)}: this change set ${value(s.key, s.set)}; it is ${value(s.key, s.now)} now. The revert sets ${value(s.key, target(s.key))}.`,
  );
  const gaps = revert.gaps.map((gap) => gapSentence(gap, change, catalogue));
  const moveBack =
    revert.moveBack === undefined && !isRecreate(change) ? [] : [moveBackSentence(revert)];
  return [
    ...keys,
    ...(since.length > 0 ? ['*Changed since this record* (what is there now):', ...since] : []),
    ...(gaps.length > 0 ? ['*What cannot be put back:*', ...gaps] : []),
    ...(isRecreate(change) ? ['*Then:*', ...moveBack] : []),
  ];
}

const isRecreate = (change: Change) => change.kind === 'role' && change.action === 'create';

/** A key as the review's other lines name it (changeLine, roleChangeLines). */
function keyText(kind: Change['kind'], key: string, catalogue: Catalogue): string {
  if (kind === 'rule') return key;
  return kind === 'role' && ROLE_FIELDS.includes(key) ? key : permissionKeyText(key, catalogue);
}

/** A value as the review shows it: role ids as code, a name or description in bold, else words. */
function valueText(
  kind: Change['kind'],
  key: string,
  value: PermissionValue | undefined,
  catalogue: Catalogue,
): string {
  const field = RULE_FIELDS.find((f) => f === key);
  if (kind === 'rule' && field) return fieldValueText(field, value);
  if (kind === 'role' && ROLE_FIELDS.includes(key)) {
    return typeof value === 'string' && value !== ''
      ? `*${escapeMrkdwn(truncate(value, 255))}*`
      : '_none_';
  }
  const user = kind === 'user-role' || kind === 'account';
  return permissionValueText(value, holdsRoleIds(key, user && key === 'role', catalogue));
}

/** What cannot be put back, in one sentence. */
function gapSentence(gap: Gap, change: Change, catalogue: Catalogue): string {
  const role = code(change.role);
  switch (gap.kind) {
    case 'default-before':
      return `${permissionKeyText(gap.key, catalogue)}: its value before this change was never read from CometChat (the record's “before” is only the documented default, ${valueText(change.kind, gap.key, gap.value, catalogue)}). The revert puts it back to the default; any other value it had cannot be put back.`;
    case 'no-default':
      return `${permissionKeyText(gap.key, catalogue)}: its value before is not known and it has no documented default, so it is left as it is; set it in the editor if you know what it was.`;
    case 'unnamed':
      return `The record does not say what the role was called or how it was described (it was deleted before the app kept that): it is created named ${role}, without a description.`;
    case 'permissions-unseen':
      return `This app never saw the permissions of ${role} (CometChat answers a role's permissions only to a change), so they cannot be put back: the role is created with the default permissions. Set them afterwards with \`/cometchat perms ${change.role}\`.`;
    case 'not-restored':
      return gap.messages
        ? 'Revoked sessions do not come back: the user signs in again. The messages it deleted stay deleted (CometChat has no way to bring a deleted message back).'
        : 'Revoked sessions do not come back: the user signs in again.';
    case 'permissions-seen': {
      const set = change.changes.filter((c) => !ROLE_FIELDS.includes(c.key)).length;
      return `Its permissions are put back as this app last saw them (${slackDate(Math.floor((gap.seenAt ?? 0) / 1000))}): ${counted(set, 'key')} that differ from the defaults. A change made outside this app after that (in CometChat's dashboard) was never seen here and cannot be put back.`;
    }
  }
}

/** Who the deletion left with `default`, to move back once the role exists again. */
function moveBackSentence({ moveBack }: Pick<Reverting, 'moveBack'>): string {
  if (!moveBack) {
    return 'The record does not name who held the role when it was deleted; `/cometchat users role:default` lists who has `default` now.';
  }
  if (moveBack.total === 0)
    return 'No user held the role when it was deleted: nobody to move back.';
  const named = moveBack.uids.slice(0, NAMED_TO_MOVE).map(code).join(', ');
  const more = moveBack.total - Math.min(moveBack.uids.length, NAMED_TO_MOVE);
  return `The deletion left ${counted(moveBack.total, 'user')} with \`default\`; creating the role again does not give it back to them. Once it exists, move each back from their card (\`/cometchat user <uid>\`, _Change role_): ${named}${more > 0 ? `, and ${more} more (\`/cometchat users role:default\`)` : ''}.`;
}
