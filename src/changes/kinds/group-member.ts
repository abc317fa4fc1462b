import type { AccountOperations } from '../../cometchat/account-model.ts';
import type { GroupOperations, GroupScope } from '../../cometchat/group-model.ts';
import { LOOK_UP_GROUP } from '../../replies/failure.ts';
import { code } from '../../slack/mrkdwn.ts';
import type { AuditRecord } from '../../store/store.ts';
import type { GroupMemberChange, KeyChange } from '../change.ts';
import { type Kind, NO_FACTS } from './kind.ts';

// One member of one group: their scope changed, kicked, banned or the ban lifted (one key each).
// CometChat has no read of one member: "is it still as reviewed?" reads the group's members (or
// its banned users) again and looks for them. A ban here is of one group, asked on the group's
// card; a containment's bans are that kind's own (containment.ts).

/** Said when a member is no longer as the review showed them: nothing was sent. */
export const MEMBER_CHANGED = `The member changed in CometChat since the review, so nothing was sent. ${LOOK_UP_GROUP} to see its members now.`;

/**
 * Why a kick has no Revert: CometChat adds a member back only by the group (they join again) or
 * by the app's add-member (`POST /groups/{guid}/members`), which this app does not offer.
 */
export const KICK_NO_REVERT =
  'A kick cannot be put back here: the member must be added back by the group (they join again, if it lets them) or by the app (CometChat’s add-member, `POST /groups/{guid}/members`, is not offered here).';

/** Members and banned users are read this many at a time (the service's largest page). */
const PER_PAGE = 1_000;
/** Groups hold at most 100,000 members (live-api-notes.md): the pages a search can take. */
const MAX_PAGES = 100;

/** Where one user stands in one group now: their scope (undefined: not a member), a ban. */
export interface Standing {
  scope: GroupScope | undefined;
  banned: boolean;
}

type MemberReads = Pick<GroupOperations, 'listGroupMembers' | 'listBannedMembers'>;

/** The member's scope, looked for among the group's members (narrowed to `scopes` if given). */
export async function memberScope(
  client: Pick<GroupOperations, 'listGroupMembers'>,
  guid: string,
  uid: string,
  scopes?: readonly GroupScope[],
): Promise<GroupScope | undefined> {
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const { members, pagination } = await client.listGroupMembers(guid, {
      scopes,
      page,
      perPage: PER_PAGE,
    });
    const found = members.find((m) => m.uid === uid);
    if (found) return found.scope;
    if (members.length === 0 || page >= pagination.total_pages) return undefined;
  }
  return undefined;
}

/** Whether the user is among the group's banned users. */
export async function isBanned(
  client: Pick<GroupOperations, 'listBannedMembers'>,
  guid: string,
  uid: string,
): Promise<boolean> {
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const { banned, pagination } = await client.listBannedMembers(guid, {
      page,
      perPage: PER_PAGE,
    });
    if (banned.some((b) => b.uid === uid)) return true;
    if (banned.length === 0 || page >= pagination.total_pages) return false;
  }
  return false;
}

/** Where the user stands in the group now, as far as a change's `key` needs to know. */
export async function standingOf(
  client: MemberReads,
  guid: string,
  uid: string,
  key: string,
): Promise<Standing> {
  if (key === 'ban') return { scope: undefined, banned: await isBanned(client, guid, uid) };
  return { scope: await memberScope(client, guid, uid), banned: false };
}

/** The value of a change's key that `standing` holds (`scope`, `membership`, `ban`). Pure. */
export function standingValue(key: string, standing: Standing): string {
  if (key === 'ban') return standing.banned ? 'banned' : 'none';
  if (key === 'membership') return standing.scope ? 'member' : 'kicked';
  return standing.scope ?? 'not a member';
}

/** What a change of a member did, once CometChat confirmed it. Pure. */
function memberDone({ key, after }: Pick<KeyChange, 'key' | 'after'>): string {
  if (key === 'scope') return `scope is now ${code(String(after))}`;
  if (key === 'membership') return 'kicked from the group';
  return after === 'banned' ? 'banned from the group' : 'the ban is lifted';
}

export function groupMemberKind(change: GroupMemberChange): Kind {
  const { guid, uid } = change;
  const [one] = change.changes;
  return {
    target: `group:${guid}:${uid}`,
    name: `member ${code(uid)} of group ${code(guid)}`,
    done: one ? memberDone(one) : '',
    outOfDate: MEMBER_CHANGED,
    logged: 'group member changed',
    async send(client) {
      if (!one || change.changes.length !== 1) {
        throw new Error('a change to a group member is exactly one change');
      }
      await sendMemberKey(client, guid, uid, one);
      return { results: { [one.key]: { success: true, message: memberDone(one) } } };
    },
    async sinceReview({ app }) {
      if (!one) return { changed: true, has: false };
      const now = standingValue(one.key, await standingOf(app.cometchat, guid, uid, one.key));
      return { changed: now !== one.before, has: now === one.after };
    },
    recordFacts: NO_FACTS,
  };
}

/** The one request a change of a member is. */
async function sendMemberKey(
  client: Pick<GroupOperations, 'setMemberScope' | 'kickGroupMember'> &
    Pick<AccountOperations, 'banGroupMember' | 'unbanGroupMember'>,
  guid: string,
  uid: string,
  { key, after }: Pick<KeyChange, 'key' | 'after'>,
): Promise<void> {
  if (key === 'scope' && isScope(after)) return client.setMemberScope(guid, uid, after);
  if (key === 'membership' && after === 'kicked') return client.kickGroupMember(guid, uid);
  if (key === 'ban' && after === 'banned') return client.banGroupMember(guid, uid);
  if (key === 'ban' && after === 'none') return client.unbanGroupMember(guid, uid);
  throw new Error(`a change to a group member does not set ${key} to ${String(after)}`);
}

function isScope(value: unknown): value is GroupScope {
  return value === 'admin' || value === 'moderator' || value === 'participant';
}

/**
 * A change of a member as one line of a review, a request or a record: the key in words, from
 * and to; ids and scopes as code. Pure.
 */
export function memberChangeLine({
  key,
  before,
  after,
}: Pick<KeyChange, 'key' | 'before' | 'after'>): string {
  if (key === 'scope') {
    return `*Scope in the group* (\`scope\`): ${code(String(before))} → *${code(String(after))}*`;
  }
  if (key === 'membership') return '*Membership* (`membership`): member → *kicked*';
  return `*Ban from the group* (\`ban\`): ${String(before)} → *${String(after)}*`;
}

/** Why a record of a member has no Revert (a kick), or undefined when it has one. Pure. */
export function kickIrreversible(record: {
  subject?: AuditRecord['subject'];
  changes: readonly { key: string }[];
}): string | undefined {
  return record.subject?.kind === 'group-member' && record.changes[0]?.key === 'membership'
    ? KICK_NO_REVERT
    : undefined;
}
