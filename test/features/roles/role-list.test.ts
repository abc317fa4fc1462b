import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Access } from '../../../src/access/access.ts';
import { createApps, signedValue, UNSIGNED_REFUSAL } from '../../../src/apps/apps.ts';
import type { CometChatClient } from '../../../src/cometchat/client.ts';
import { createShareRoles } from '../../../src/features/roles/role-list.ts';
import { InputError } from '../../../src/replies/failure.ts';
import { runInRequest } from '../../../src/request-context.ts';
import type { Deliverer, SlackMessage } from '../../../src/slack/deliver.ts';
import type { Views } from '../../../src/slack/views.ts';

// A listener called the way Bolt calls it, with a fake ack: what it acknowledges, asks and sends.

/** Sharing a role list opens no modal: any views call fails the test. */
const unexpected = async (): Promise<never> => {
  throw new Error('no views call expected');
};
const noViews: Views = {
  open: unexpected,
  push: unexpected,
  update: unexpected,
  publish: unexpected,
};

function setup() {
  const asked: unknown[] = [];
  const sent: SlackMessage[] = [];
  const cometchat = {
    async listRoles(query: unknown) {
      asked.push(query);
      return {
        roles: [{ role: 'default', name: 'Default', description: '' }],
        pagination: { total: 1, count: 1, per_page: 10, current_page: 1, total_pages: 1 },
      };
    },
  } as unknown as CometChatClient;
  const deliver: Deliverer = async (_to, message) => {
    sent.push(message);
    return 'response_url';
  };
  const apps = createApps([
    {
      name: 'default',
      appId: 'app',
      region: 'us',
      apiKey: 'key-for-signing',
      cometchat,
      access: {} as Access,
    },
  ]);
  const share = createShareRoles({ apps, deliver, views: noViews, budgetSeconds: 8, secrets: [] });
  let acked = 0;
  const request = { ref: 'ref0000004', log: pino({ level: 'silent' }), receivedAt: 0 };
  const call = (value: string) =>
    runInRequest(request, () =>
      share({
        ack: async () => {
          acked += 1;
        },
        // Bolt's respond to the body's response_url.
        respond: async (message: SlackMessage) => {
          sent.push(message);
        },
        action: { type: 'button', action_id: 'share_roles', value },
        body: {
          user: { id: 'U1' },
          response_url: 'https://hooks.example/1',
          channel: { id: 'C1' },
        },
        context: {},
      } as unknown as Parameters<typeof share>[0]),
    );
  const [app] = apps.all;
  if (!app) throw new Error('no app');
  /** A value as the app writes it: signed for its one app. */
  const signed = (payload: Record<string, unknown>) => signedValue(app, payload);
  return { call, signed, asked, sent, acked: () => acked };
}

describe('Share in channel (roles)', () => {
  it('acknowledges, then posts the page for everyone, without buttons', async () => {
    const { call, signed, asked, sent, acked } = setup();
    await call(signed({ page: 1 }));
    expect(acked()).toBe(1);
    expect(asked).toEqual([{ page: 1, perPage: 10 }]);
    expect(sent[0]?.response_type).toBe('in_channel');
    expect(sent[0]?.blocks?.some((b) => b.type === 'actions')).toBe(false);
  });

  it('refuses a tampered page value without asking CometChat', async () => {
    const { call, signed, asked, acked } = setup();
    await expect(call(signed({ page: 10_001 }))).rejects.toBeInstanceOf(InputError);
    expect(acked()).toBe(1);
    expect(asked).toEqual([]);
  });

  it('refuses an unsigned page value, with one app configured, without asking CometChat', async () => {
    const { call, asked, acked } = setup();
    await expect(call(JSON.stringify({ page: 1 }))).rejects.toThrow(
      new InputError(UNSIGNED_REFUSAL),
    );
    expect(acked()).toBe(1);
    expect(asked).toEqual([]);
  });
});
