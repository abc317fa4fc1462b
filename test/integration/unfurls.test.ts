import { describe, expect, it } from 'vitest';
import { SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import { ACTIONS } from '../../src/slack/ids.ts';
import { type Harness, interactionReply, sandboxOf, textOf } from './harness.ts';
import { driverAs, useHarnessStarter, useSharedHarness } from './support.ts';

// Dashboard links posted in a channel, through the real app: link_shared over HTTP, the cards
// sent with chat.unfurl, and what their buttons answer.

const DASHBOARD = 'https://app.cometchat.com/app';

interface UnfurlCall {
  args: Record<string, unknown>;
}

/** Posts `urls` as the operator and waits for the app's chat.unfurl. */
async function share(h: Harness, urls: string[], user = 'U0OPERATOR'): Promise<UnfurlCall> {
  const driver = driverAs(h, user);
  const mark = h.slack.calls.length;
  const sent = await driver.event(driver.linkShared(urls));
  expect(sent.status).toBe(200);
  return h.slack.waitFor(() =>
    h.slack.calls.slice(mark).find((c) => c.method === 'chat.unfurl'),
  ) as Promise<UnfurlCall>;
}

/** Posts `urls` and gives the app time to have unfurled them; resolves with what it sent. */
async function shareAndSettle(h: Harness, urls: string[], user = 'U0OPERATOR') {
  const driver = driverAs(h, user);
  const mark = h.slack.calls.length;
  const requests = h.sandbox.requests.length;
  const logged = h.logs.lines.length;
  const sent = await driver.event(driver.linkShared(urls));
  expect(sent.status).toBe(200);
  // The event is acknowledged before the listener finishes: wait for the line it ends with.
  await h.slack.waitFor(() =>
    h.logs
      .records()
      .slice(logged)
      .find((record) => /^links (not )?unfurled/.test(record.message)),
  );
  return {
    unfurls: h.slack.calls.slice(mark).filter((c) => c.method === 'chat.unfurl'),
    cometchat: h.sandbox.requests.slice(requests),
  };
}

function cardOf(call: UnfurlCall, url: string): Record<string, unknown> {
  const unfurls = call.args.unfurls as Record<string, Record<string, unknown>>;
  const card = unfurls[url];
  if (!card) throw new Error(`no card for ${url} in ${JSON.stringify(Object.keys(unfurls))}`);
  return card;
}

function buttonsOf(card: Record<string, unknown>): { action_id: string; value: string }[] {
  return ((card.blocks ?? []) as { accessory?: { action_id: string; value: string } }[])
    .map((b) => b.accessory)
    .filter((a): a is { action_id: string; value: string } => a !== undefined);
}

describe('dashboard links through the real app', () => {
  const h = useSharedHarness({}, { resetAfterEach: true });

  it('a pasted role link unfurls once, as a card of that role with a Details button', async () => {
    const url = `${DASHBOARD}/sandbox-app/roles/admin`;
    const call = await share(h, [url]);
    const card = cardOf(call, url);
    expect(textOf(card)).toContain('*Administrator*  `admin`');
    expect(textOf(card)).toContain('Operations team');
    expect(buttonsOf(card).map((b) => b.action_id)).toEqual([ACTIONS.roleDetails]);
    expect(call.args.unfurl_id).toBeTruthy();
    expect(call.args.source).toBe('conversations_history');
    // Once: one chat.unfurl for the message, with one card.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.slack.calls.filter((c) => c.method === 'chat.unfurl')).toHaveLength(1);
    expect(Object.keys(call.args.unfurls as object)).toEqual([url]);
  });

  it("the role card's Details answers the person with the role in full and the editor button", async () => {
    const url = `${DASHBOARD}/sandbox-app/roles/admin`;
    const details = buttonsOf(cardOf(await share(h, [url]), url))[0];
    const driver = driverAs(h, 'U0OPERATOR');
    const reply = await interactionReply(
      h,
      driver.blockAction({ actionId: ACTIONS.roleDetails, value: details?.value ?? '' }),
    );
    expect(reply.response_type).toBe('ephemeral');
    expect(reply.replace_original).toBe(false);
    expect(textOf(reply)).toContain('escalationChannel');
    expect(JSON.stringify(reply)).toContain(ACTIONS.editPermissions);
  });

  it('a call link unfurls with the call line and the same Details button as a search', async () => {
    const id = SANDBOX_SESSION_IDS.audioEnded;
    const url = `${DASHBOARD}/sandbox-app/calls/${encodeURIComponent(id)}`;
    const card = cardOf(await share(h, [url]), url);
    expect(textOf(card)).toContain('audio');
    expect(textOf(card)).toContain('cometchat-uid-1');
    expect(textOf(card)).toContain(id);
    expect(buttonsOf(card).map((b) => b.action_id)).toEqual([ACTIONS.callDetails]);
  });

  it('a link to a role or call the app does not have says so in the card', async () => {
    const role = `${DASHBOARD}/sandbox-app/roles/no-such-role`;
    const call = `${DASHBOARD}/sandbox-app/calls/v1.us.sandbox-app.nosuchcall`;
    const sent = await share(h, [role, call]);
    expect(textOf(cardOf(sent, role))).toContain('CometChat has no role `no-such-role`');
    expect(textOf(cardOf(sent, call))).toContain('CometChat has no call');
  });

  it('links of another app, other pages and other hosts get no card and cost CometChat nothing', async () => {
    const { unfurls, cometchat } = await shareAndSettle(h, [
      `${DASHBOARD}/some-other-app/roles/admin`,
      `${DASHBOARD}/sandbox-app/overview`,
      `${DASHBOARD}/sandbox-app/widgets/w1`,
      'https://example.com/app/sandbox-app/roles/admin',
    ]);
    expect(unfurls).toEqual([]);
    expect(cometchat).toEqual([]);
  });

  it('the composer preview is unfurled through its unfurl id', async () => {
    const url = `${DASHBOARD}/sandbox-app/roles/default`;
    const driver = driverAs(h, 'U0OPERATOR');
    const mark = h.slack.calls.length;
    await driver.event(driver.linkShared([url], { composer: true }));
    const call = await h.slack.waitFor(() =>
      h.slack.calls.slice(mark).find((c) => c.method === 'chat.unfurl'),
    );
    expect(call.args.source).toBe('composer');
    expect(call.args.channel).toBeUndefined();
  });
});

describe('dashboard links and who may see them', () => {
  const start = useHarnessStarter();

  it('nothing is unfurled for a person outside VIEWERS, and CometChat is not asked', async () => {
    const h = await start({ env: { VIEWERS: 'U0VIEWER' } });
    const { unfurls, cometchat } = await shareAndSettle(
      h,
      [`${DASHBOARD}/sandbox-app/roles/admin`],
      'U0STRANGER',
    );
    expect(unfurls).toEqual([]);
    expect(cometchat).toEqual([]);
    const viewer = await share(h, [`${DASHBOARD}/sandbox-app/roles/admin`], 'U0VIEWER');
    expect(Object.keys(viewer.args.unfurls as object)).toHaveLength(1);
  });

  it('with several apps, each link is shown from the app its id names', async () => {
    const h = await start({ apps: ['staging', 'prod'] });
    const second = sandboxOf(h, 'prod');
    const secondRole = second.state.roles[0]?.role ?? '';
    const url = `${DASHBOARD}/sandbox-app-2/roles/${secondRole}`;
    const card = cardOf(await share(h, [url]), url);
    expect(textOf(card)).toContain(`\`${secondRole}\``);
    expect(textOf(card)).toContain('in *prod*');
  });
});
