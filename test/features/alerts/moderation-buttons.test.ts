import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { Access } from '../../../src/access/access.ts';
import { createApps, signedValue } from '../../../src/apps/apps.ts';
import type { CometChatClient } from '../../../src/cometchat/client.ts';
import {
  ALERT_CLAIM_SECONDS,
  alertClaimId,
  createClaimButton,
  type ModerationButtonDeps,
} from '../../../src/features/alerts/moderation-buttons.ts';
import { moderationFacts } from '../../../src/features/alerts/moderation-event.ts';
import { moderationPost } from '../../../src/features/alerts/moderation-view.ts';
import { runInRequest } from '../../../src/request-context.ts';
import type { ButtonArgs } from '../../../src/slack/listener-args.ts';
import { createMemoryStore } from '../../../src/store/store.ts';
import { moderationData } from '../../fixtures/moderation-webhooks/index.ts';

// Claim's listener alone, with a fake Slack client: the claim is taken once, and let go when
// the post could not be updated (so the next click may claim the alert).

const apps = createApps([
  {
    name: 'default',
    appId: 'app1',
    region: 'us',
    apiKey: 'a-key-for-signing-only',
    cometchat: {} as CometChatClient,
    access: { moderatorRefusal: async () => undefined } as unknown as Access,
  },
]);
const app = apps.all[0];

function clickArgs(update: () => Promise<unknown>, value: string) {
  const facts = moderationFacts(
    'moderation_engine_blocked',
    moderationData('moderation_engine_blocked'),
  );
  if (!facts || !app) throw new Error('no facts');
  const post = moderationPost(facts, undefined, { claim: value });
  const respond = vi.fn(async () => undefined);
  const args = {
    ack: async () => undefined,
    body: {
      user: { id: 'U0MOD' },
      channel: { id: 'C0ALL' },
      message: { type: 'message', ts: '1.2', text: post.text, blocks: post.blocks },
    },
    action: { value },
    respond,
    client: { chat: { update: vi.fn(update) } },
  };
  return { args: args as unknown as ButtonArgs, respond, update: args.client.chat.update };
}

function depsWith(store = createMemoryStore()): ModerationButtonDeps {
  return {
    apps,
    store,
    deliver: {} as ModerationButtonDeps['deliver'],
    now: () => 1_757_953_600_000,
  };
}

const request = { ref: 'ref0000001', log: pino({ level: 'silent' }), receivedAt: 0 };

describe('Claim', () => {
  it('takes the claim once and names the moderator on the post', async () => {
    if (!app) throw new Error('no app');
    const store = createMemoryStore();
    const value = signedValue(app, { id: 'event-1' });
    const first = clickArgs(async () => ({ ok: true }), value);
    await runInRequest(request, () => createClaimButton(depsWith(store))(first.args));
    expect(first.update).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(first.update.mock.calls[0])).toContain('Claimed by <@U0MOD>');
    const second = clickArgs(async () => ({ ok: true }), value);
    await runInRequest(request, () => createClaimButton(depsWith(store))(second.args));
    expect(second.update).not.toHaveBeenCalled();
    expect(JSON.stringify(second.respond.mock.calls)).toContain('Someone claimed this alert first');
  });

  it('lets the claim go when Slack did not take the update', async () => {
    if (!app) throw new Error('no app');
    const store = createMemoryStore();
    const value = signedValue(app, { id: 'event-2' });
    const failing = clickArgs(async () => {
      throw new Error('Slack is down');
    }, value);
    await expect(
      runInRequest(request, () => createClaimButton(depsWith(store))(failing.args)),
    ).rejects.toThrow('Slack is down');
    expect(await store.claim(alertClaimId('event-2', 'C0ALL'), ALERT_CLAIM_SECONDS)).toBe(true);
  });
});
