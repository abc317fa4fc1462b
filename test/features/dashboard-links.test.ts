import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { checkMessage } from '../../offline/slack-standin/block-kit-limits.ts';
import type { CometChatApp } from '../../src/apps/apps.ts';
import type { Call, User } from '../../src/cometchat/model.ts';
import { callMessage } from '../../src/features/calls/call-view.ts';
import { UNFURLERS } from '../../src/features/index.ts';
import { roleDetailsMessage } from '../../src/features/roles/role-card.ts';
import {
  type DashboardSection,
  dashboardAddress,
  openInCometChat,
  planUnfurls,
  readDashboardLink,
} from '../../src/features/unfurl.ts';
import { userCardMessage } from '../../src/features/users/user-card.ts';
import { ACTIONS } from '../../src/slack/ids.ts';

// "Open in CometChat": the one address builder, read back by the unfurls' reader, and the link
// button on the cards of a role, a user and a call. Pure.

const APP_ID = '1a2b3c';
const app = (appId: string | undefined) =>
  ({ name: 'prod', appId, sign: () => 'signature' }) as unknown as CometChatApp;

/** The url buttons of a message's actions blocks. */
const links = (blocks: readonly KnownBlock[] | undefined) =>
  (blocks ?? []).flatMap((b) =>
    b.type === 'actions'
      ? b.elements.flatMap((e) =>
          e.type === 'button' && e.url ? [{ actionId: e.action_id, url: e.url }] : [],
        )
      : [],
  );

const write = (value: Record<string, unknown>) => JSON.stringify(value);

const user: User = { uid: 'cometchat-uid-4', name: 'Ana', role: 'premium', status: 'offline' };
const role = { role: 'premium', name: 'Premium', description: '' };
const call: Call = {
  sessionId: 'v1.us.1a2b3c.1700000000abc',
  type: 'video',
  mode: 'call',
  status: 'ended',
  totalParticipants: 0,
  participants: [],
  hasRecording: false,
  recordings: [],
  hasTranscription: false,
  transcriptions: [],
};

describe('dashboardAddress', () => {
  it('is read back by readDashboardLink as the same app, section and id', () => {
    const cases: [DashboardSection, string][] = [
      ['users', 'cometchat-uid-4'],
      ['users', 'ana.o@example.com'],
      ['users', 'a b/c?d#e%f'],
      ['roles', 'premium'],
      ['calls', call.sessionId],
    ];
    for (const [section, id] of cases) {
      const url = dashboardAddress(APP_ID, section, id);
      expect(url, id).toBeDefined();
      expect(readDashboardLink(url ?? ''), id).toEqual({ url, appId: APP_ID, section, id });
    }
  });

  it('is unfurled by the feature that shows that section, for the same item', () => {
    const apps = { all: [app(APP_ID)] };
    for (const [section, id] of [
      ['users', 'cometchat-uid-4'],
      ['roles', 'premium'],
      ['calls', call.sessionId],
    ] as const) {
      const url = dashboardAddress(APP_ID, section, id) ?? '';
      const [planned] = planUnfurls([{ url }], apps, UNFURLERS);
      expect(planned?.unfurler.section).toBe(section);
      expect(planned?.id).toBe(id);
    }
  });

  it('is nothing without the app id, and no button when Slack would refuse the url', () => {
    expect(dashboardAddress(undefined, 'users', 'u1')).toBeUndefined();
    expect(dashboardAddress('', 'users', 'u1')).toBeUndefined();
    expect(openInCometChat(undefined, 'users', 'u1')).toBeUndefined();
    expect(openInCometChat(APP_ID, 'users', 'x'.repeat(3000))).toBeUndefined();
    expect(openInCometChat(APP_ID, 'users', 'u1')).toEqual({
      type: 'button',
      text: { type: 'plain_text', text: 'Open in CometChat', emoji: true },
      action_id: ACTIONS.openInCometChat,
      url: 'https://app.cometchat.com/app/1a2b3c/users/u1',
    });
  });
});

describe('Open in CometChat on the cards', () => {
  const open = (url: string) => [{ actionId: ACTIONS.openInCometChat, url }];

  it("links a role's card to its dashboard page, beside Edit permissions", () => {
    const message = roleDetailsMessage(role, app(APP_ID), undefined);
    expect(links(message.blocks)).toEqual(
      open('https://app.cometchat.com/app/1a2b3c/roles/premium'),
    );
    expect(JSON.stringify(message.blocks)).toContain(ACTIONS.editPermissions);
    expect(checkMessage(message)).toEqual([]);
  });

  it("links a user's card to their dashboard page", () => {
    const message = userCardMessage(user, { write, appId: APP_ID });
    expect(links(message.blocks)).toEqual(
      open('https://app.cometchat.com/app/1a2b3c/users/cometchat-uid-4'),
    );
    expect(checkMessage(message)).toEqual([]);
  });

  it("links a call's card to its dashboard page", () => {
    const message = callMessage(call, undefined, { value: write, appId: APP_ID });
    expect(links(message.blocks)).toEqual(
      open(`https://app.cometchat.com/app/1a2b3c/calls/${call.sessionId}`),
    );
    expect(checkMessage(message)).toEqual([]);
  });

  it("has no link where the app's id is unknown, and keeps the other buttons", () => {
    const roleCard = roleDetailsMessage(role, app(undefined), undefined);
    const userCard = userCardMessage(user, { write });
    const callCard = callMessage(call, undefined, { value: write });
    for (const message of [roleCard, userCard, callCard]) {
      expect(links(message.blocks)).toEqual([]);
      expect(JSON.stringify(message.blocks)).not.toContain(ACTIONS.openInCometChat);
    }
    expect(JSON.stringify(userCard.blocks)).toContain(ACTIONS.userCalls);
    expect(JSON.stringify(callCard.blocks)).toContain(ACTIONS.shareCall);
  });
});
