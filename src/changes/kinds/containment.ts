import type { MessageQuery } from '../../cometchat/account-model.ts';
import { isCometChatError } from '../../cometchat/errors.ts';
import { accountOf } from '../../cometchat/model.ts';
import type { PermissionValue } from '../../cometchat/schemas.ts';
import { counted } from '../../replies/sentences.ts';
import { code } from '../../slack/mrkdwn.ts';
import type { AuditStep } from '../../store/store.ts';
import type { ContainmentChange, KeyChange } from '../change.ts';
import { failureFacts, mayHaveApplied } from '../record.ts';
import { type ChangeClient, type Kind, NO_FACTS, type Sent } from './kind.ts';
import { USER_CHANGED } from './user.ts';

// An account in trouble, contained as one change: every session revoked, the user banned from
// their groups and their messages since a time soft-deleted (each optional), the account
// deactivated. In that order, because CometChat answers a deactivated user's uid as unknown on
// the routes named by uid. Revoking and deactivating always happen, whatever an optional step
// did; each step's outcome is the record's (`steps`), and one that failed leaves it partial.
// Its revert is the same kind the other way: reactivated first (the bans are lifted by uid),
// then unbanned. Revoked sessions and deleted messages do not come back.

/** The most messages one containment soft-deletes: the rest are said, not silently left. */
export const MAX_CONTAINMENT_DELETIONS = 1_000;

/** A page of the user's messages while they are counted or deleted. */
const PAGE = 100;

/** A step that failed while the account could not be deactivated: the whole change failed. */
export class ContainmentFailed extends Error {
  override readonly name = 'ContainmentFailed';
  constructor(
    readonly steps: AuditStep[],
    override readonly cause: unknown,
  ) {
    super('the account step of a containment failed');
  }
}

/** Whether a containment change contains (else it is a revert of one). Pure. */
export function contains(change: Pick<ContainmentChange, 'changes'>): boolean {
  return change.changes.some((c) => c.key === 'status' && c.after === 'deactivated');
}

export function containmentKind(change: ContainmentChange): Kind {
  const containing = contains(change);
  return {
    target: `user:${change.uid}`,
    name: `user ${code(change.uid)}`,
    done: containing ? 'sessions revoked, account deactivated' : 'account reactivated, bans lifted',
    outOfDate: USER_CHANGED,
    logged: containing ? 'user contained' : 'containment reverted',
    send: (client, alive = async () => {}) =>
      containing ? contain(client, change, alive) : release(client, change),
    async sinceReview({ app }) {
      const status = change.changes.find((c) => c.key === 'status');
      if (!status) return { changed: false, has: false };
      const account = accountOf(await app.cometchat.getUser(change.uid));
      return { changed: account !== status.before, has: account === status.after };
    },
    recordFacts: NO_FACTS,
  };
}

/** What a step's failure says in its record: CometChat's words, or the failure's kind. Pure. */
function failedStep(key: string, error: unknown, what: string): AuditStep {
  const facts = failureFacts(error);
  const words = facts.serviceMessage ?? facts.errorKind ?? 'failed';
  return {
    key,
    outcome: mayHaveApplied(error) ? 'unknown' : 'failed',
    message: `${what}: ${words}`,
  };
}

/** Runs one step; its failure is recorded, not thrown: the next steps still run. */
async function step(key: string, what: string, run: () => Promise<string>): Promise<AuditStep> {
  try {
    return { key, outcome: 'applied', message: await run() };
  } catch (error) {
    return failedStep(key, error, what);
  }
}

/** Whether CometChat answered that there was nothing there (no session, already banned). */
const answered = (error: unknown, ...codes: string[]) =>
  isCometChatError(error) && codes.includes(error.serviceCode ?? '');

async function contain(
  client: ChangeClient,
  change: ContainmentChange,
  alive: () => Promise<void>,
): Promise<Sent> {
  const { uid } = change;
  const steps: AuditStep[] = [];
  steps.push(
    await step('sessions', 'revoking every session', async () => {
      try {
        await client.revokeAllSessions(uid);
      } catch (error) {
        if (!answered(error, 'ERR_AUTH_TOKEN_NOT_FOUND')) throw error;
        return 'no session to revoke';
      }
      return 'every session revoked';
    }),
  );
  for (const guid of guidsOf(change, 'after')) {
    await alive();
    steps.push(
      await step(`bans:${guid}`, `banning from ${guid}`, async () => {
        try {
          await client.banGroupMember(guid, uid);
        } catch (error) {
          if (!answered(error, 'ERR_ALREADY_BANNED')) throw error;
          return `banned from ${guid} already`;
        }
        return `banned from ${guid}`;
      }),
    );
  }
  const since = change.changes.find((c) => c.key === 'messagesSince')?.after;
  if (typeof since === 'string') {
    steps.push(await deleteSince(client, { uid, since: Number(since) }, alive));
  }
  await alive();
  try {
    const uids = await client.deactivateUsers([uid]);
    const listed = uids.includes(uid) || accountOf(await client.getUser(uid)) === 'deactivated';
    if (!listed) throw new Error('CometChat did not list the user as deactivated');
    steps.push({ key: 'status', outcome: 'applied', message: 'account deactivated' });
  } catch (error) {
    // The record names the step that failed beside those that took.
    throw new ContainmentFailed(
      [...steps, failedStep('status', error, 'deactivating the account')],
      error,
    );
  }
  return sentOf(steps);
}

/**
 * The user's messages since `since` soft-deleted, newest first, at most the cap. A message gone
 * meanwhile (deleted for good by someone else) is passed over: there is nothing left to delete.
 */
async function deleteSince(
  client: ChangeClient,
  { uid, since }: { uid: string; since: number },
  alive: () => Promise<void>,
): Promise<AuditStep> {
  let deleted = 0;
  try {
    const ids = await messagesSince(client, { sender: uid, since, hideDeleted: true, limit: PAGE });
    for (const id of ids) {
      await alive();
      try {
        await client.deleteMessage(id, { permanent: false });
        deleted += 1;
      } catch (error) {
        if (!(isCometChatError(error) && error.kind === 'not_found')) throw error;
      }
    }
    const capped =
      ids.length >= MAX_CONTAINMENT_DELETIONS ? ' (the most one containment deletes)' : '';
    return {
      key: 'messagesSince',
      outcome: 'applied',
      message: `${counted(deleted, 'message')} soft-deleted${capped}`,
    };
  } catch (error) {
    return failedStep('messagesSince', error, `soft-deleting messages (${deleted} done)`);
  }
}

/**
 * The ids of the sender's messages since the query's time that are not deleted yet, newest
 * first, read page by page with CometChat's cursor, at most MAX_CONTAINMENT_DELETIONS.
 */
export async function messagesSince(
  client: Pick<ChangeClient, 'listMessages'>,
  query: MessageQuery,
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: MessageQuery['cursor'];
  for (;;) {
    const page = await client.listMessages({ ...query, cursor });
    const newestFirst = [...page.messages].sort((a, b) => b.sentAt - a.sentAt);
    for (const message of newestFirst) {
      if (message.deletedAt === undefined && !ids.includes(message.id)) ids.push(message.id);
    }
    const oldest = newestFirst.at(-1);
    if (!oldest || page.messages.length < query.limit || ids.length >= MAX_CONTAINMENT_DELETIONS) {
      return ids.slice(0, MAX_CONTAINMENT_DELETIONS);
    }
    cursor = { affix: 'prepend', id: oldest.id, sentAt: oldest.sentAt };
  }
}

/** A containment put back: the account reactivated first (bans are lifted by uid), then unbanned. */
async function release(client: ChangeClient, change: ContainmentChange): Promise<Sent> {
  const { uid } = change;
  const steps: AuditStep[] = [];
  if (change.changes.some((c) => c.key === 'status')) {
    const uids = await client.reactivateUsers([uid]);
    if (!uids.includes(uid) && accountOf(await client.getUser(uid)) !== 'active') {
      throw new Error('CometChat did not list the user as reactivated');
    }
    steps.push({ key: 'status', outcome: 'applied', message: 'account reactivated' });
  }
  for (const guid of guidsOf(change, 'before')) {
    steps.push(
      await step(`bans:${guid}`, `lifting the ban in ${guid}`, async () => {
        try {
          await client.unbanGroupMember(guid, uid);
        } catch (error) {
          if (!answered(error, 'ERR_NOT_A_BANNED_USER')) throw error;
          return `not banned in ${guid} any more`;
        }
        return `ban in ${guid} lifted`;
      }),
    );
  }
  return sentOf(steps);
}

/** The groups of the change's `bans` key, before or after. Pure. */
export function guidsOf(
  change: { changes: readonly KeyChange[] },
  side: 'before' | 'after',
): string[] {
  const value = change.changes.find((c) => c.key === 'bans')?.[side];
  return Array.isArray(value) ? value : [];
}

/** The answer of a change of several steps: each step's outcome, as results and as the record's. */
function sentOf(steps: AuditStep[]): Sent {
  const results = Object.fromEntries(
    steps.map((s) => [s.key, { success: s.outcome === 'applied', message: s.message }]),
  );
  return { results, steps };
}

/**
 * The groups a containment's record says it banned the user from: its steps' bans that took, or
 * whose outcome is unknown (lifting a ban that did not take is harmless); without steps, every
 * ban it asked. Pure.
 */
export function bansMade(record: {
  changes: readonly KeyChange[];
  steps?: readonly AuditStep[] | undefined;
}): string[] {
  if (!record.steps) return guidsOf(record, 'after');
  return record.steps
    .filter((s) => s.outcome !== 'failed' && s.key.startsWith('bans:'))
    .map((s) => s.key.slice('bans:'.length));
}

/**
 * Whether a record that did not apply whole still has something to put back: a containment
 * whose account step failed after bans were made. Pure.
 */
export function revertibleAnyway(record: {
  subject?: { kind: string } | undefined;
  changes: readonly { key: string; before: PermissionValue | null; after: PermissionValue }[];
  steps?: readonly AuditStep[] | undefined;
}): boolean {
  if (record.subject?.kind !== 'containment') return false;
  const changes = record.changes.map((c) => ({
    ...c,
    before: c.before ?? undefined,
    explicit: false,
  }));
  return contains({ changes }) && bansMade({ changes, steps: record.steps }).length > 0;
}
