import { describe, expect, it } from 'vitest';
import { approvalMessage } from '../../../src/changes/approval-view.ts';
import {
  changeOf,
  decodeChange,
  encodeChange,
  type ModerationChange,
  subjectOf,
} from '../../../src/changes/change.ts';
import type { ChangeClient, Reads } from '../../../src/changes/kinds/index.ts';
import { kindOf } from '../../../src/changes/kinds/index.ts';
import { revertOf } from '../../../src/changes/revert.ts';
import { revertButton } from '../../../src/changes/revert-view.ts';
import type { AuditRecord } from '../../../src/store/store.ts';
import { blocked, flagged } from '../../features/moderation/fixtures.ts';

const ID = 'c'.repeat(24);

function decision(
  queue: 'flagged' | 'blocked',
  before: ModerationChange['changes'][0]['before'],
  after: ModerationChange['changes'][0]['after'],
): ModerationChange {
  return {
    kind: 'moderation',
    id: ID,
    role: '',
    messageId: 'm1',
    queue,
    ...(queue === 'blocked'
      ? { rule: { id: 'no-links', name: 'No links' } }
      : { reasons: ['Spam'] }),
    changes: [{ key: 'status', before, after, explicit: false }],
  } as ModerationChange;
}

/** A client that records each decision and lists the queues it is given. */
function fakeClient(queues: { flagged?: string[]; blocked?: string[] } = {}) {
  const sent: string[] = [];
  const notAsked = () => Promise.reject(new Error('not asked'));
  const client = {
    decideFlaggedMessage: async (id: string, status: string) => {
      sent.push(`flagged ${id} ${status}`);
    },
    decideBlockedMessage: async (id: string, status: string) => {
      sent.push(`blocked ${id} ${status}`);
    },
    listFlaggedMessages: async () => (queues.flagged ?? []).map((id) => flagged(id, 1)),
    listBlockedMessages: async () => (queues.blocked ?? []).map((id) => blocked(id, 1)),
    getRule: notAsked,
    updateRule: notAsked,
    getUser: notAsked,
    listAllRoles: notAsked,
    getMessage: notAsked,
    listSessions: notAsked,
    listGroupMembers: notAsked,
    listBannedMembers: notAsked,
  };
  return { sent, client };
}

const reads = (client: ReturnType<typeof fakeClient>['client']): Reads => ({
  store: { getKnownPermissions: async () => undefined },
  app: { name: 'default', cometchat: client },
});

describe('a moderation decision, as a kind of change', () => {
  it('is read back from Slack and from records as it was written', () => {
    const change = decision('blocked', 'blocked', 'delivered');
    expect(decodeChange(encodeChange(change))).toEqual(change);
    expect(subjectOf(change)).toEqual({
      kind: 'message',
      id: 'm1',
      queue: 'blocked',
      rule: { id: 'no-links', name: 'No links' },
    });
    const changes = change.changes.map((c) => ({ ...c, before: c.before ?? null }));
    const stored = { id: ID, role: '', subject: subjectOf(change), changes };
    expect(changeOf(stored)).toEqual(change);
    // A status the app never sends is not one.
    expect(
      decodeChange(
        encodeChange({ ...change, changes: [{ ...change.changes[0], after: 'x' }] } as never),
      ),
    ).toBeUndefined();
  });

  it("takes only a waiting message to one of its queue's decisions: a forged pair is refused", () => {
    const decisions = [
      ['flagged', 'approved'],
      ['flagged', 'disapproved'],
      ['blocked', 'delivered'],
      ['blocked', 'rejected'],
    ] as const;
    for (const [queue, after] of decisions) {
      expect(decodeChange(encodeChange(decision(queue, queue, after)))).toBeDefined();
    }
    const forged = [
      decision('flagged', 'approved', 'disapproved'),
      decision('flagged', 'disapproved', 'approved'),
      decision('flagged', 'flagged', 'delivered'),
      decision('flagged', 'blocked', 'approved'),
      decision('blocked', 'blocked', 'approved'),
      decision('blocked', 'rejected', 'delivered'),
      decision('blocked', 'flagged', 'rejected'),
      decision('blocked', 'blocked', 'blocked'),
    ];
    for (const change of forged) expect(decodeChange(encodeChange(change))).toBeUndefined();
  });

  it('sends one PATCH of the service status: delivering is approving a blocked message', async () => {
    const { sent, client } = fakeClient();
    await kindOf(decision('flagged', 'flagged', 'disapproved')).send(
      client as unknown as ChangeClient,
    );
    await kindOf(decision('blocked', 'blocked', 'delivered')).send(
      client as unknown as ChangeClient,
    );
    await kindOf(decision('blocked', 'blocked', 'rejected')).send(
      client as unknown as ChangeClient,
    );
    expect(sent).toEqual(['flagged m1 disapproved', 'blocked m1 approved', 'blocked m1 rejected']);
  });

  it('is out of date once the message no longer waits in its queue', async () => {
    const kind = kindOf(decision('flagged', 'flagged', 'approved'));
    expect(await kind.sinceReview(reads(fakeClient({ flagged: ['m1'] }).client))).toMatchObject({
      changed: false,
    });
    const gone = await kind.sinceReview(reads(fakeClient({ flagged: ['m2'] }).client));
    expect(gone.changed).toBe(true);
    expect(gone.why).toMatch(
      /^Message `m1` is no longer waiting for a decision: it was decided already/,
    );
    expect(kind.target).toBe('message:m1');
  });
});

describe('reverting a moderation decision', () => {
  const record = (change: ModerationChange): AuditRecord =>
    ({
      ref: 'ref0000001',
      at: 1,
      app: 'default',
      teamId: 'T1',
      userId: 'U1',
      role: '',
      changes: change.changes.map(({ key, before, after }) => ({ key, before, after })),
      outcome: 'applied',
      subject: subjectOf(change),
    }) as AuditRecord;
  const now = { roles: [], defaults: {} };

  it('has no Revert for any decision, and says why: none can be decided again', () => {
    const decided = [
      decision('flagged', 'flagged', 'approved'),
      decision('flagged', 'flagged', 'disapproved'),
      decision('blocked', 'blocked', 'rejected'),
    ].map(record);
    for (const one of decided) {
      expect(revertButton(JSON.stringify, one)).toBeUndefined();
      expect(revertOf(one, now)).toEqual({
        kind: 'none',
        sentence:
          'CometChat documents no way to decide a reviewed message again. Nothing was sent.',
      });
    }
  });

  it('has no Revert for a delivered message, and says it cannot be taken back', () => {
    const delivered = record(decision('blocked', 'blocked', 'delivered'));
    expect(revertButton(JSON.stringify, delivered)).toBeUndefined();
    expect(revertOf(delivered, now)).toEqual({
      kind: 'none',
      sentence:
        'Delivering cannot be taken back: its receivers have the message. Nothing was sent.',
    });
  });
});

describe('a moderation decision waiting for a second moderator', () => {
  const request = (change: ModerationChange) => ({
    id: 'req1',
    app: 'default',
    role: '',
    subject: subjectOf(change),
    changes: change.changes.map(({ key, before, after, explicit }) => ({
      key,
      before: before ?? null,
      after,
      explicit,
    })),
    teamId: 'T1',
    requester: 'U0MOD1',
    requestedAt: 1,
    expiresAt: 2,
    channel: 'C0APPROVE',
    status: 'open' as const,
  });

  it('tells the approver that delivering cannot be taken back, and only then', () => {
    const deliver = JSON.stringify(
      approvalMessage(request(decision('blocked', 'blocked', 'delivered'))),
    );
    expect(deliver).toContain('Delivering cannot be taken back');
    expect(deliver).toContain('message `m1`');
    const hide = JSON.stringify(
      approvalMessage(request(decision('flagged', 'flagged', 'disapproved'))),
    );
    expect(hide).not.toContain('cannot be taken back');
    expect(hide).toContain(
      'Its record will have no _Revert_: CometChat documents no way to decide a reviewed message again.',
    );
  });

  it('says what became of the message, not of a role, when the request ends unsent', () => {
    const change = decision('flagged', 'flagged', 'disapproved');
    const ended = (status: 'stale' | 'unknown' | 'expired') =>
      JSON.stringify(approvalMessage({ ...request(change), status }));
    expect(ended('stale')).toContain('Message `m1` was decided meanwhile; nothing was sent.');
    expect(ended('unknown')).toContain(
      'Check whether the message still waits in `/cometchat moderation` before an approver retries.',
    );
    expect(ended('expired')).toContain('Ask again from `/cometchat moderation` if it still waits.');
    for (const status of ['stale', 'unknown', 'expired'] as const) {
      expect(ended(status)).not.toMatch(/the role|from the editor/);
    }
  });
});
