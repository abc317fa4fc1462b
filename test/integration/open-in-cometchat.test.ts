import { describe, expect, it } from 'vitest';
import { ACTIONS } from '../../src/slack/ids.ts';
import { actionButtons, commandReply } from './harness.ts';
import { useHarnessStarter } from './support.ts';

// "Open in CometChat" on a user's card, through the real app: the link is the dashboard page of
// that user in that app, and the click Slack still sends for a link button is acknowledged by
// its listener, not left to the catch-all.

describe('Open in CometChat', () => {
  const start = useHarnessStarter();

  it("links a user's card to their dashboard page, and acknowledges the click", async () => {
    const h = await start();
    const reply = await commandReply(h, 'user cometchat-uid-2');
    const link = actionButtons(reply).find((b) => b.action_id === ACTIONS.openInCometChat);
    const appId = h.config.cometchat.apps[0]?.appId;
    expect(appId).toBeTruthy();
    expect(link).toMatchObject({
      url: `https://app.cometchat.com/app/${appId}/users/cometchat-uid-2`,
    });

    const clicked = await h.driver.interaction(
      h.driver.blockAction({
        actionId: ACTIONS.openInCometChat,
        value: '',
        responseUrl: h.slack.responseUrl(),
        message: { ts: '1700000000.000100', blocks: reply.blocks as unknown[] },
      }),
    );
    expect(clicked.status).toBe(200);
    expect(h.logs.text()).not.toContain('request taken by no listener');
    expect(h.logs.errors()).toEqual([]);
  });
});
