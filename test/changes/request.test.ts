import { describe, expect, it } from 'vitest';
import type { Change, PermissionsChange } from '../../src/changes/change.ts';
import { approvalRecord, requestedNotice } from '../../src/changes/request.ts';

// "Request approval" without Slack: the request as it is stored and posted, and what the modal
// says for each outcome.

const NOW = 1_800_000_000_000;

const meta: PermissionsChange = {
  kind: 'permissions',
  role: 'default',
  id: 'a'.repeat(24),
  changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
  seenAt: 5_000,
};

const record = (overrides: Partial<Parameters<typeof approvalRecord>[0]> = {}) =>
  approvalRecord({
    app: { name: 'prod', approval: { channel: 'C0APPROVE', ttlMs: 3_600_000 } },
    change: meta,
    known: { app: 'prod', role: 'default', permissions: { sendMessage: 'allow' }, seenAt: 5_000 },
    userId: 'U0OPERATOR',
    teamId: 'T1',
    reason: 'ticket 42',
    now: NOW,
    ...overrides,
  });

describe('approvalRecord', () => {
  it('is an open request in the approval channel, by the requester, until the TTL runs out', () => {
    expect(record()).toMatchObject({
      id: meta.id,
      app: 'prod',
      role: 'default',
      channel: 'C0APPROVE',
      requester: 'U0OPERATOR',
      teamId: 'T1',
      reason: 'ticket 42',
      seenAt: 5_000,
      requestedAt: NOW,
      expiresAt: NOW + 3_600_000,
      status: 'open',
    });
  });

  it("takes each key's before from the store, not from what the confirmation claims", () => {
    const forged: PermissionsChange = {
      ...meta,
      changes: [{ key: 'sendMessage', before: 'deny', after: 'deny', explicit: true }],
    };
    expect(record({ change: forged }).changes).toEqual([
      { key: 'sendMessage', before: 'allow', after: 'deny', explicit: false },
    ]);
  });

  it('stores a key the store never saw with a null before, and names a promotion by its ref', () => {
    const promoted = record({
      known: undefined,
      change: {
        ...meta,
        changes: [{ key: 'customKey', before: undefined, after: 'deny', explicit: false }],
        promotedFrom: { app: 'staging', ref: 'ref0000009' },
      },
    });
    expect(promoted.changes[0]?.before).toBeNull();
    expect(promoted.seenAt).toBeUndefined();
    expect(promoted.promotedFrom).toBe('ref0000009');
  });
});

describe("a role deletion's request", () => {
  it('keeps how many users hold the role, for the approver; none when CometChat could not say', () => {
    const deletion: Change = {
      kind: 'role',
      action: 'delete',
      role: 'vip',
      id: 'b'.repeat(24),
      changes: [{ key: 'role', before: 'vip', after: null, explicit: false }],
    };
    expect(record({ change: deletion, known: undefined, holders: 4 }).holders).toBe(4);
    expect(record({ change: deletion, known: undefined })).not.toHaveProperty('holders');
  });
});

describe('requestedNotice', () => {
  const label = { appName: 'prod' };

  it('says where the request is and that nothing is sent before approval', () => {
    const said = requestedNotice({ kind: 'requested', channel: 'C0APPROVE' }, meta, label);
    expect(said.title).toBe('Approval requested');
    expect(said.sentence).toContain('1 change to `default` in *prod* is in <#C0APPROVE>');
    expect(said.sentence).toContain('Nothing is sent until another person approves it');
  });

  it('counts several changes in the plural', () => {
    const two = { ...meta, changes: [...meta.changes, ...meta.changes] };
    const said = requestedNotice({ kind: 'requested', channel: 'C1' }, two, {});
    expect(said.sentence).toContain('2 changes to `default` is in <#C1>');
  });

  it('says why nothing was requested, for each other outcome', () => {
    expect(requestedNotice({ kind: 'repeated' }, meta, label)).toEqual({
      title: 'Already requested',
      sentence: 'This change was already requested once.',
    });
    expect(requestedNotice({ kind: 'stale' }, meta, label).sentence).toContain(
      '`default` in *prod* changed since you reviewed this',
    );
    expect(requestedNotice({ kind: 'refused', sentence: 'No.' }, meta, label)).toEqual({
      title: 'Not allowed',
      sentence: 'No.',
    });
    expect(requestedNotice({ kind: 'not-posted', sentence: 'Gone.' }, meta, label)).toEqual({
      title: 'Not requested',
      sentence: 'Gone.',
    });
  });
});
