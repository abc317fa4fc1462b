import { describe, expect, it } from 'vitest';
import type { StoredView } from '../../offline/slack-standin/web-api.ts';
import { editorShown, submitView } from '../../offline/stack/editor-steps.ts';
import { openSignedOption } from '../../src/apps/apps.ts';
import { ACTIONS } from '../../src/slack/ids.ts';
import { appsOf, commandReply, type Harness, sandboxOf, textOf } from './harness.ts';
import { applyChange, driverAs, puts, reviewFlip, useHarnessStarter } from './support.ts';

// The Home tab through the real app: app_home_opened over HTTP and Socket Mode, what each person
// is shown, and every button working from the tab.

interface Element {
  type?: string;
  action_id?: string;
  value?: string;
  options?: { value: string }[];
}

/** Opens the Home tab as `user` (over HTTP) and resolves with the view published last. */
async function openHome(h: Harness, user = 'U0OPERATOR', wantText?: string): Promise<StoredView> {
  const driver = driverAs(h, user);
  const mark = h.slack.calls.length;
  const sent = await driver.event(driver.homeOpened());
  expect(sent.status).toBe(200);
  await h.slack.waitFor(() =>
    h.slack.calls
      .slice(mark)
      .find(
        (c) =>
          c.method === 'views.publish' &&
          c.args.user_id === user &&
          (wantText === undefined || textOf(c.args.view).includes(wantText)),
      ),
  );
  const home = h.slack.homes.get(user);
  if (!home) throw new Error(`no Home tab for ${user}`);
  return home;
}

function elements(view: StoredView): Element[] {
  return ((view.blocks ?? []) as { elements?: Element[] }[]).flatMap((b) => b.elements ?? []);
}

async function click(h: Harness, view: StoredView, actionId: string, user = 'U0OPERATOR') {
  const driver = driverAs(h, user);
  const element = elements(view).find((e) => e.action_id === actionId);
  if (!element) throw new Error(`no ${actionId} on the Home tab`);
  return driver.interaction(
    driver.blockAction({
      actionId,
      ...(element.type === 'static_select'
        ? { selectedOption: { value: element.options?.[0]?.value ?? '' } }
        : { value: element.value ?? '' }),
      view,
    }),
  );
}

/** The workspace's people: Slack publishes a Home tab only for a member. */
function members(h: Harness, ...ids: string[]): void {
  h.slack.setUsers([
    { id: 'U0OPERATOR', name: 'operator', real_name: 'Offline Operator', is_admin: true },
    ...ids.map((id) => ({ id, name: id.toLowerCase(), real_name: id })),
  ]);
}

describe('the Home tab', () => {
  const start = useHarnessStarter();

  it('shows an editor the app, its roles with a picker, the last changes and the buttons', async () => {
    const h = await start({ env: { EDITORS: 'U0OPERATOR' } });
    const started = Date.now();
    const home = await openHome(h);
    // Published within a second of the event, on the sandbox.
    expect(Date.now() - started).toBeLessThan(1_000);
    const text = textOf(home);
    expect(text).toContain('Key works');
    expect(text).toContain('`default`');
    expect(text).toContain('No permission change yet.');
    expect(elements(home).map((e) => e.action_id)).toEqual(
      expect.arrayContaining([
        ACTIONS.homeFindCalls,
        ACTIONS.homeLookupCall,
        ACTIONS.homeHelp,
        ACTIONS.homeEditRole,
      ]),
    );
  });

  it('offers a viewer no editing, and someone who may not use the app nothing', async () => {
    const h = await start({ env: { EDITORS: 'U0OPERATOR', VIEWERS: 'U0VIEWER' } });
    members(h, 'U0VIEWER', 'U0STRANGER');
    const viewer = await openHome(h, 'U0VIEWER');
    expect(textOf(viewer)).toContain('Key works');
    expect(elements(viewer).map((e) => e.action_id)).not.toContain(ACTIONS.homeEditRole);
    const stranger = await openHome(h, 'U0STRANGER');
    expect(elements(stranger)).toEqual([]);
    expect(textOf(stranger)).not.toContain('default');
  });

  it('asks CometChat once a minute at most, however often the tab is opened', async () => {
    const h = await start({ env: { EDITORS: 'U0OPERATOR', COMETCHAT_ROLE_CACHE_SECONDS: '0' } });
    for (let i = 0; i < 50; i += 1) await openHome(h);
    expect(h.sandbox.requests.filter((r) => r.path.startsWith('/v3/roles'))).toHaveLength(1);
  });

  it('shows an approver the request waiting, whose Approve works from the tab', async () => {
    const h = await start({
      env: { APPROVAL_CHANNEL: 'C0APPROVE', EDITORS: 'U0OPERATOR,U0LEAD' },
    });
    members(h, 'U0LEAD');
    const { confirmation } = await reviewFlip(h);
    await submitView(h, confirmation, {});
    await h.slack.nextCall('chat.postMessage');
    const own = await openHome(h, 'U0OPERATOR');
    expect(textOf(own)).toContain('Your requests waiting for approval');
    expect(elements(own).map((e) => e.action_id)).not.toContain(ACTIONS.approveChange);

    const lead = await openHome(h, 'U0LEAD', 'Waiting for your approval (1)');
    // Reject asks for the reason, from the tab as from the channel.
    const asked = h.slack.calls.length;
    await click(h, lead, ACTIONS.rejectChange, 'U0LEAD');
    const reason = await h.slack.nextCall('views.open', asked);
    expect(textOf(reason.args.view)).toContain('Why (the requester is told)');
    const mark = h.slack.calls.length;
    await click(h, lead, ACTIONS.approveChange, 'U0LEAD');
    await h.slack.nextCall('chat.update', mark);
    expect(puts(h)).toHaveLength(1);
    // The tab is published again, the request gone from it and the change listed.
    const after = await h.slack.waitFor(() => {
      const view = h.slack.homes.get('U0LEAD');
      return view && !textOf(view).includes('Waiting for your approval') ? view : undefined;
    });
    expect(textOf(after)).toContain(':white_check_mark: applied');
  });

  it('opens the forms, the help and the editor from its buttons', async () => {
    const h = await start({ env: { EDITORS: 'U0OPERATOR' } });
    const home = await openHome(h);
    for (const [action, title] of [
      [ACTIONS.homeFindCalls, 'Look up a call'],
      [ACTIONS.homeLookupCall, 'Look up a call'],
      [ACTIONS.homeHelp, 'Help'],
    ] as const) {
      const mark = h.slack.calls.length;
      await click(h, home, action);
      const opened = await h.slack.nextCall('views.open', mark);
      expect(textOf((opened.args.view as { title?: unknown }).title)).toContain(title);
    }
    const mark = h.slack.calls.length;
    await click(h, home, ACTIONS.homeEditRole);
    const editor = await editorShown(h, mark);
    expect(textOf(editor)).toContain('Allowed actions');
  });

  it("shows one app's failure in its own section only", async () => {
    const h = await start({ apps: ['staging', 'prod'], env: { EDITORS: 'U0OPERATOR' } });
    sandboxOf(h, 'prod').inject({ kind: 'status', status: 401, times: Number.POSITIVE_INFINITY });
    const home = await openHome(h);
    const text = textOf(home);
    expect(text).toMatch(/staging.*Key works/);
    expect(text).toMatch(/prod.*CometChat refused the key/);
    // Only the working app offers its roles.
    const pickers = elements(home).filter((e) => e.action_id === ACTIONS.homeEditRole);
    expect(pickers).toHaveLength(1);
    const apps = appsOf(h);
    const options = pickers[0]?.options ?? [];
    expect(options.length).toBeGreaterThan(0);
    for (const option of options) {
      expect(openSignedOption(apps, option.value).app.name).toBe('staging');
    }
  });

  it('shows, for two apps, the roles whose known maps differ once a change is applied in one', async () => {
    const h = await start({ apps: ['staging', 'prod'], env: { VIEWERS: 'U0VIEWER' } });
    members(h, 'U0VIEWER');
    const before = textOf(await openHome(h, 'U0VIEWER'));
    expect(before).toContain('Roles that differ between apps');
    // Never changed through the app: both are the documented defaults.
    expect(before).toContain('*staging* and *prod*: no role known in both differs.');
    expect(before).toMatch(/Known in one app only: \*staging\* `[^`]+`.* · \*prod\* `auditor`/);

    await applyChange(h, { app: 'staging', role: 'admin', key: 'sendMessage', value: 'deny' });
    const after = textOf(await openHome(h, 'U0VIEWER', 'role differs'));
    const listed = after.match(
      /\*staging\* and \*prod\*: \*1 role differs\*\n• `admin` · (\d+ keys? differs?) · `\/cometchat compare admin staging prod`/,
    );
    expect(listed).not.toBeNull();
    // The command it names counts the same keys.
    const reply = await commandReply(h, 'compare admin staging prod');
    expect(textOf(reply)).toContain(`*${listed?.[1]}*`);
    expect(textOf(await openHome(h))).not.toContain('no role known in both differs');
  });

  it('has no such section with one app', async () => {
    const h = await start();
    expect(textOf(await openHome(h))).not.toContain('Roles that differ between apps');
  });

  it('lists the alert subscriptions of the channels the person is in, and only those', async () => {
    const h = await start({ env: { VIEWERS: 'U0OPERATOR,U0VIEWER' } });
    members(h, 'U0VIEWER');
    h.slack.setChannelMembers({ C0OPS: ['U0OPERATOR', 'U0VIEWER'], C0ELSE: ['U0OPERATOR'] });
    expect(textOf(await openHome(h, 'U0VIEWER'))).not.toContain('Alerts in your channels');
    // With no subscription anywhere, Slack is not asked for anyone's channels.
    expect(h.slack.calls.map((c) => c.method)).not.toContain('users.conversations');

    await commandReply(h, 'subscribe calls status:unanswered', h.driver, { channel_id: 'C0OPS' });
    await commandReply(h, 'subscribe recordings', h.driver, { channel_id: 'C0ELSE' });
    const text = textOf(await openHome(h, 'U0VIEWER', 'Alerts in your channels'));
    expect(text).toContain('<#C0OPS> · *calls* `status:unanswered` · by <@U0OPERATOR>');
    expect(text).not.toContain('C0ELSE');
    expect(text).toContain('`/cometchat subscriptions`');
    expect(text.indexOf('Alerts in your channels')).toBeLessThan(
      text.indexOf('Recent permission changes'),
    );
    const asked = await h.slack.nextCall('users.conversations');
    expect(asked.args).toMatchObject({ user: 'U0VIEWER', types: 'public_channel,private_channel' });
    expect(textOf(await openHome(h, 'U0OPERATOR', 'Alerts in your channels'))).toContain(
      '<#C0ELSE> · *recordings*',
    );
  });

  it('says in one line that the person’s channels could not be read, the rest drawn', async () => {
    const h = await start();
    await commandReply(h, 'subscribe calls', h.driver, { channel_id: 'C0OPS' });
    // An install made before the app asked for channels:read, say.
    h.slack.fail('users.conversations', { error: 'missing_scope' });
    const text = textOf(await openHome(h, 'U0OPERATOR', 'Alerts in your channels'));
    expect(text).toContain('Your channels could not be read just now');
    expect(text).toContain('Key works');
    expect(text).toContain('No permission change yet.');
  });

  it('is published for app_home_opened over Socket Mode too', async () => {
    const h = await start({ mode: 'socket', env: { SLACK_SIGNING_SECRET: undefined } });
    const mark = h.slack.calls.length;
    await h.slack.sendEnvelope('events_api', h.driver.eventBody(h.driver.homeOpened()));
    await h.slack.nextCall('views.publish', mark);
    expect(textOf(h.slack.homes.get('U0OPERATOR'))).toContain('Key works');
  });
});
