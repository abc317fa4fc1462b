import { describe, expect, it, vi } from 'vitest';
import {
  type ContainmentChange,
  containmentProblem,
  decodeChange,
  encodeChange,
} from '../../../src/changes/change.ts';
import { containmentChangeOf } from '../../../src/changes/containment-view.ts';
import {
  ContainmentFailed,
  containmentKind,
  messagesSince,
} from '../../../src/changes/kinds/containment.ts';
import { revertOf } from '../../../src/changes/revert.ts';
import type { ChatMessage, MessageQuery } from '../../../src/cometchat/account-model.ts';
import { CometChatError } from '../../../src/cometchat/errors.ts';
import type { AuditRecord } from '../../../src/store/store.ts';

// A containment sends its steps in the order the service allows, records each step's outcome,
// and always revokes and deactivates; its revert reactivates first, then lifts the bans it made.

const uid = 'cometchat-uid-7';

function message(id: number, sentAt: number, deleted = false): ChatMessage {
  return {
    id: String(id),
    conversationId: 'group_hiking',
    sender: uid,
    receiverType: 'group',
    receiver: 'hiking',
    category: 'message',
    type: 'text',
    sentAt,
    attachments: 0,
    ...(deleted ? { deletedAt: sentAt + 1 } : {}),
  };
}

/** A client that keeps every write in `calls`, in order; `fail` names writes that fail. */
function client(fail: { ban?: string; deactivate?: boolean } = {}) {
  const calls: string[] = [];
  const messages = Array.from({ length: 250 }, (_, i) => message(i + 1, 1_000 + i, i % 50 === 0));
  const failure = (serviceCode: string) =>
    new CometChatError({ kind: 'unavailable', ref: 'r', operation: 'x', status: 503, serviceCode });
  return {
    calls,
    revokeAllSessions: vi.fn(async (u: string) => void calls.push(`revoke ${u}`)),
    banGroupMember: vi.fn(async (guid: string, u: string) => {
      if (guid === fail.ban) throw failure('ERR_SERVICE');
      calls.push(`ban ${guid} ${u}`);
    }),
    unbanGroupMember: vi.fn(
      async (guid: string, u: string) => void calls.push(`unban ${guid} ${u}`),
    ),
    listMessages: vi.fn(async (q: MessageQuery) => {
      const since = q.since ?? 0;
      const before = q.cursor ? Number(q.cursor.id) : Number.POSITIVE_INFINITY;
      const older = messages.filter((m) => m.sentAt >= since && Number(m.id) < before);
      return { messages: older.slice(-q.limit) };
    }),
    deleteMessage: vi.fn(async (id: string, o: { permanent: boolean }) => {
      calls.push(`delete ${id}${o.permanent ? ' permanently' : ''}`);
    }),
    deactivateUsers: vi.fn(async (uids: string[]) => {
      if (fail.deactivate) throw failure('ERR_SERVICE');
      calls.push(`deactivate ${uids.join()}`);
      return uids;
    }),
    reactivateUsers: vi.fn(async (uids: string[]) => {
      calls.push(`reactivate ${uids.join()}`);
      return uids;
    }),
    getUser: vi.fn(async () => ({ uid, name: 'Ann', role: 'default', status: 'offline' })),
  };
}

const asked = {
  uid,
  name: 'Ann',
  role: 'default',
  sessions: 3,
  groups: ['hiking', 'climbing'],
  since: { at: 1_200, count: 48 },
};
const contained = containmentChangeOf('default', asked, 'V1');

describe('a containment, sent', () => {
  it('revokes, bans each group, deletes each message since the time, then deactivates', async () => {
    const fake = client();
    const sent = await containmentKind(contained).send(fake as never);
    const { calls } = fake;
    expect(calls[0]).toBe(`revoke ${uid}`);
    expect(calls.slice(1, 3)).toEqual([`ban hiking ${uid}`, `ban climbing ${uid}`]);
    const deletions = calls.filter((c) => c.startsWith('delete'));
    // Messages 201..250 were sent at 1200 or later; message 201 was deleted already.
    expect(deletions).toHaveLength(49);
    expect(new Set(deletions).size).toBe(49);
    expect(deletions.every((c) => !c.endsWith('permanently'))).toBe(true);
    expect(calls.at(-1)).toBe(`deactivate ${uid}`);
    expect(sent.steps?.map((s) => [s.key, s.outcome])).toEqual([
      ['sessions', 'applied'],
      ['bans:hiking', 'applied'],
      ['bans:climbing', 'applied'],
      ['messagesSince', 'applied'],
      ['status', 'applied'],
    ]);
  });

  it('still revokes and deactivates when a ban fails, and names the failed step', async () => {
    const fake = client({ ban: 'hiking' });
    const sent = await containmentKind(contained).send(fake as never);
    expect(fake.calls[0]).toBe(`revoke ${uid}`);
    expect(fake.calls.at(-1)).toBe(`deactivate ${uid}`);
    expect(fake.calls).toContain(`ban climbing ${uid}`);
    const failed = sent.steps?.filter((s) => s.outcome !== 'applied');
    expect(failed?.map((s) => s.key)).toEqual(['bans:hiking']);
    expect(failed?.[0]?.message).toContain('banning from hiking');
  });

  it('fails as a whole when the account cannot be deactivated, keeping what the steps did', async () => {
    const fake = client({ deactivate: true });
    const error = await containmentKind(contained)
      .send(fake as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContainmentFailed);
    const steps = error instanceof ContainmentFailed ? error.steps : [];
    expect(steps.map((s) => [s.key, s.outcome])).toEqual([
      ['sessions', 'applied'],
      ['bans:hiking', 'applied'],
      ['bans:climbing', 'applied'],
      ['messagesSince', 'applied'],
      ['status', 'failed'],
    ]);
    expect(steps.at(-1)?.message).toContain('deactivating the account');
  });

  it('passes over a message gone meanwhile and deletes the rest, saying it is alive between', async () => {
    const fake = client();
    fake.deleteMessage.mockImplementationOnce(async () => {
      throw new CometChatError({
        kind: 'not_found',
        ref: 'r',
        operation: 'deleteMessage',
        status: 404,
        serviceCode: 'ERR_MSG_NOT_FOUND',
      });
    });
    const alive = vi.fn(async () => {});
    const sent = await containmentKind(contained).send(fake as never, alive);
    expect(fake.deleteMessage).toHaveBeenCalledTimes(49);
    expect(sent.steps?.find((s) => s.key === 'messagesSince')).toMatchObject({
      outcome: 'applied',
      message: '48 messages soft-deleted',
    });
    // Before each ban, each deletion and the deactivation.
    expect(alive.mock.calls.length).toBeGreaterThanOrEqual(2 + 49 + 1);
  });
});

describe('reading the messages a containment deletes', () => {
  it('pages back with the cursor, newest first, skipping deleted ones, once each', async () => {
    const fake = client();
    const ids = await messagesSince(fake, { sender: uid, since: 0, limit: 100 });
    expect(ids).toHaveLength(245);
    expect(new Set(ids).size).toBe(245);
    expect(ids[0]).toBe('250');
    expect(fake.listMessages).toHaveBeenCalledTimes(3);
  });
});

describe("a containment's keys", () => {
  it('are carried through Slack and read back as the same change', () => {
    expect(decodeChange(encodeChange(contained))).toEqual({ ...contained, seenAt: undefined });
  });

  it('carry a compromised account with more sessions than a review could list', () => {
    const many = containmentChangeOf('default', { ...asked, sessions: 1_234 }, 'V2');
    expect(decodeChange(encodeChange(many))?.changes[0]).toMatchObject({
      before: '1234',
      after: '0',
    });
  });

  it('refuse any other order, a containment that does not deactivate, and a ban lifted', () => {
    const [sessions, bans, since, status] = contained.changes;
    if (!sessions || !bans || !since || !status) throw new Error('four steps');
    expect(containmentProblem(contained.changes)).toBeUndefined();
    expect(containmentProblem([status, sessions])).toBeDefined();
    expect(containmentProblem([sessions, bans])).toBeDefined();
    expect(
      containmentProblem([sessions, { ...bans, before: ['x'], after: [] }, status]),
    ).toBeDefined();
    const reordered = { ...contained, changes: [sessions, since, bans, status] };
    expect(decodeChange(encodeChange(reordered))).toBeUndefined();
  });
});

describe("a containment's revert", () => {
  const record = (steps?: AuditRecord['steps']): AuditRecord => ({
    ref: 'ref-1',
    at: 1,
    app: 'default',
    teamId: 'T1',
    userId: 'U1',
    role: 'default',
    subject: { kind: 'containment', uid },
    changes: contained.changes.map((c) => ({ ...c, before: c.before ?? null })),
    beforeSource: 'service',
    outcome: 'applied',
    ...(steps ? { steps } : {}),
  });
  const deactivated = {
    uid,
    name: 'Ann',
    role: 'default',
    status: 'offline' as const,
    deactivatedAt: 5,
  };
  const now = { roles: [], defaults: {}, user: deactivated };

  it('reactivates, then lifts only the bans that were made, and says what does not come back', () => {
    const steps: AuditRecord['steps'] = [
      { key: 'sessions', outcome: 'applied', message: 'every session revoked' },
      { key: 'bans:hiking', outcome: 'failed', message: 'banning from hiking: failed' },
      { key: 'bans:climbing', outcome: 'applied', message: 'banned from climbing' },
      { key: 'status', outcome: 'applied', message: 'account deactivated' },
    ];
    const revert = revertOf(record(steps), now);
    if (revert.kind !== 'revert') throw new Error(revert.sentence);
    expect(revert.change.kind).toBe('containment');
    expect(revert.change.changes.map((c) => [c.key, c.before, c.after])).toEqual([
      ['status', 'deactivated', 'active'],
      ['bans', ['climbing'], []],
    ]);
    expect(revert.gaps).toEqual([{ kind: 'not-restored', messages: true }]);
    expect(revert.change.reverts).toBe('ref-1');
  });

  it('sends the reactivation first, then each unban', async () => {
    const revert = revertOf(record(), now);
    if (revert.kind !== 'revert' || revert.change.kind !== 'containment') throw new Error('none');
    const fake = client();
    await containmentKind(revert.change as ContainmentChange).send(fake as never);
    expect(fake.calls).toEqual([
      `reactivate ${uid}`,
      `unban hiking ${uid}`,
      `unban climbing ${uid}`,
    ]);
  });

  it('lifts a ban whose outcome was unknown, and the bans of a containment whose deactivation failed', () => {
    const steps: AuditRecord['steps'] = [
      { key: 'sessions', outcome: 'applied', message: 'every session revoked' },
      { key: 'bans:hiking', outcome: 'unknown', message: 'banning from hiking: timeout' },
      { key: 'bans:climbing', outcome: 'failed', message: 'banning from climbing: refused' },
      { key: 'status', outcome: 'failed', message: 'deactivating the account: refused' },
    ];
    const active = { ...now, user: { ...deactivated, deactivatedAt: undefined } };
    const revert = revertOf({ ...record(steps), outcome: 'failed' }, active);
    if (revert.kind !== 'revert') throw new Error(revert.sentence);
    expect(revert.change.changes.map((c) => [c.key, c.before, c.after])).toEqual([
      ['bans', ['hiking'], []],
    ]);
  });

  it('has nothing to put back for a user active again and banned nowhere', () => {
    const steps: AuditRecord['steps'] = [
      { key: 'sessions', outcome: 'applied', message: 'every session revoked' },
      { key: 'status', outcome: 'applied', message: 'account deactivated' },
    ];
    const active = { ...now, user: { ...deactivated, deactivatedAt: undefined } };
    expect(revertOf(record(steps), active).kind).toBe('none');
  });
});
