import type { WebClient } from '@slack/web-api';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Access } from '../../src/access/access.ts';
import { createApps } from '../../src/apps/apps.ts';
import { expireApprovals, requestsFor } from '../../src/changes/approvals.ts';
import { decisionClaim } from '../../src/changes/decide.ts';
import type { CometChatClient } from '../../src/cometchat/client.ts';
import { runInRequest } from '../../src/request-context.ts';
import type { Deliverer } from '../../src/slack/deliver.ts';
import { type ApprovalRequest, createMemoryStore } from '../../src/store/store.ts';

// The expiry sweep on its own: a memory store, a recording Slack client, a fixed clock.

const NOW = 1_800_000_000_000;

const request = (id: string, expiresAt: number): ApprovalRequest => ({
  id: id.padStart(24, '0'),
  app: 'default',
  role: 'default',
  changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
  teamId: 'T1',
  requester: 'U0OPERATOR',
  requestedAt: expiresAt - 1_000,
  expiresAt,
  channel: 'C0APPROVE',
  ts: `1700000000.${id.padStart(6, '0')}`,
  status: 'open',
});

function setup() {
  const store = createMemoryStore(() => NOW);
  const updates: { ts: string; text: string }[] = [];
  const told: { userId: string; text: string }[] = [];
  const client = {
    chat: {
      update: async (args: { ts: string; text: string }) => {
        updates.push({ ts: args.ts, text: args.text });
        return { ok: true };
      },
    },
  } as unknown as WebClient;
  const deliver: Deliverer = async (destination, message) => {
    told.push({ userId: destination.userId, text: message.text });
    return 'dm';
  };
  const apps = createApps([
    {
      name: 'default',
      appId: 'app',
      region: 'us',
      apiKey: 'key',
      cometchat: {} as CometChatClient,
      access: {} as Access,
      approval: { channel: 'C0APPROVE', ttlMs: 3_600_000 },
    },
  ]);
  const deps = { store, apps, deliver, now: () => NOW };
  return { store, client, deps, updates, told, log: pino({ level: 'silent' }) };
}

describe('expireApprovals', () => {
  it('closes the requests past their expiry in the channel and tells their requester', async () => {
    const { store, client, deps, updates, told, log } = setup();
    await store.putApproval(request('1', NOW - 1));
    await store.putApproval(request('2', NOW + 60_000));
    expect(await expireApprovals(deps, client, log)).toBe(1);
    expect(updates).toHaveLength(1);
    expect(updates[0]?.ts).toBe('1700000000.000001');
    expect(updates[0]?.text).toContain('(expired)');
    expect(told).toEqual([{ userId: 'U0OPERATOR', text: expect.stringContaining('Expired') }]);
    expect((await store.getApproval(request('1', 0).id))?.status).toBe('expired');
    expect((await store.listOpenApprovals()).map((r) => r.id)).toEqual([request('2', 0).id]);
    // Run again (another replica, the next minute): nothing more is said.
    expect(await expireApprovals(deps, client, log)).toBe(0);
    expect(told).toHaveLength(1);
  });

  it('leaves a request someone is deciding', async () => {
    const { store, client, deps, updates, log } = setup();
    await store.putApproval(request('3', NOW - 1));
    await store.claim(decisionClaim(request('3', 0).id), 120);
    expect(await expireApprovals(deps, client, log)).toBe(0);
    expect(updates).toEqual([]);
    expect((await store.getApproval(request('3', 0).id))?.status).toBe('open');
  });
});

describe('requestsFor', () => {
  // An editor who does not moderate, and a moderator who does not edit; each check counted.
  const asked: string[] = [];
  const refusal = (who: string, allowed: string) => async (userId: string) => {
    asked.push(`${who} ${userId}`);
    return userId === allowed ? undefined : `not a ${who}`;
  };
  const access = {
    editRefusal: refusal('editor', 'U0EDITOR'),
    moderatorRefusal: refusal('moderator', 'U0MOD'),
  } as unknown as Access;
  const moderation = (id: string): ApprovalRequest => ({
    ...request(id, NOW + 1_000),
    role: '',
    subject: { kind: 'message', id: '9001', queue: 'flagged' },
    changes: [{ key: 'status', before: 'flagged', after: 'approved', explicit: false }],
  });
  const open = [
    request('1', NOW + 1_000),
    moderation('2'),
    request('3', NOW + 1_000),
    moderation('4'),
  ];
  const apps = createApps([
    {
      name: 'default',
      appId: 'app',
      region: 'us',
      apiKey: 'key',
      cometchat: {} as CometChatClient,
      access,
      approval: { channel: 'C0APPROVE', ttlMs: 3_600_000 },
      moderationApproval: true,
    },
  ]);
  const deps = { store: { listOpenApprovals: async () => open }, apps, now: () => NOW };
  const waitingFor = (userId: string) =>
    runInRequest({ ref: 'ref0000001', log: pino({ level: 'silent' }), receivedAt: NOW }, () =>
      requestsFor(deps, userId),
    ).then(({ waiting }) => waiting.map((listed) => Number(listed.request.id)));

  it('lists a message decision to moderators and any other change to editors, each check once', async () => {
    asked.length = 0;
    expect(await waitingFor('U0EDITOR')).toEqual([1, 3]);
    expect(await waitingFor('U0MOD')).toEqual([2, 4]);
    expect(asked).toEqual([
      'editor U0EDITOR',
      'moderator U0EDITOR',
      'editor U0MOD',
      'moderator U0MOD',
    ]);
  });
});
