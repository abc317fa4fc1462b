import { afterEach, describe, expect, it } from 'vitest';
import {
  confirm,
  confirmationOf,
  openEditor,
  submitView,
  switchCategory,
  withFieldSet,
} from '../../src/dev/editor-steps.ts';
import { createSlackDriver, type SlackDriver } from '../../src/slack-standin/driver.ts';
import type { StoredView } from '../../src/slack-standin/web-api.ts';
import { type Harness, startHarness, textOf } from './harness.ts';

function driverFor(h: Harness, userId: string): SlackDriver {
  return createSlackDriver({
    appUrl: h.appUrl,
    signingSecret: h.config.slack.signingSecret ?? '',
    standIn: h.slack,
    userId,
  });
}

function puts(h: Harness) {
  return h.sandbox.requests.filter((r) => r.method === 'PUT');
}

/** The editor's confirmation for `<key>: deny`, prepared by the harness's own user. */
async function preparedConfirmation(
  h: Harness,
  key = 'sendMessage',
): Promise<{ editor: StoredView; confirmation: StoredView }> {
  const editor = await openEditor(h, 'default');
  const messages = await switchCategory(h, editor, 'Messages');
  await submitView(h, messages, withFieldSet(messages, key, 'deny'));
  const confirmation = confirmationOf(h, editor);
  if (!confirmation) throw new Error('no confirmation');
  return { editor: messages, confirmation };
}

async function refusedCommand(h: Harness, driver: SlackDriver, text: string): Promise<string> {
  const mark = h.slack.responses.length;
  const sent = await driver.command(text);
  expect(sent.status).toBe(200);
  return textOf((await h.slack.nextResponse(mark)).body);
}

describe('who may edit and view', () => {
  let h: Harness;
  afterEach(async () => {
    h.checkAllPayloads();
    await h.stop();
  });

  it('lets a workspace admin edit when EDITORS is not set, and refuses anyone else', async () => {
    h = await startHarness();
    h.slack.setUsers([
      { id: 'U0OPERATOR', is_admin: true },
      { id: 'U0MEMBER', is_admin: false },
    ]);
    await openEditor(h, 'default');
    const text = await refusedCommand(h, driverFor(h, 'U0MEMBER'), 'perms default');
    expect(text).toContain('Only workspace admins and owners may change permissions');
    expect(h.slack.calls.filter((c) => c.method === 'views.open')).toHaveLength(1);
  });

  it('lets listed editors and members of a listed user group edit, and refuses an admin who is not listed', async () => {
    h = await startHarness({ env: { EDITORS: 'U0EDITOR,S0EDITORS' } });
    h.slack.setUsers([{ id: 'U0OPERATOR', is_admin: true }]);
    h.slack.setUserGroups({ S0EDITORS: ['U0GROUPIE'] });

    for (const user of ['U0EDITOR', 'U0GROUPIE']) {
      const mark = h.slack.calls.length;
      await driverFor(h, user).command('perms default');
      await h.slack.nextCall('views.open', mark);
    }
    const text = await refusedCommand(h, h.driver, 'perms default');
    expect(text).toContain("Only the people listed in the app's EDITORS setting");
    expect(h.slack.calls.filter((c) => c.method === 'views.open')).toHaveLength(2);
  });

  it('changes nothing when someone else submits or confirms an editor they did not open', async () => {
    h = await startHarness({ env: { EDITORS: 'U0OPERATOR' } });
    const { editor, confirmation } = await preparedConfirmation(h);
    const intruder = driverFor(h, 'U0INTRUDER');

    const forgedReview = await intruder.interaction(
      intruder.viewSubmission({
        view: editor,
        values: withFieldSet(editor, 'sendMessage', 'deny'),
      }),
    );
    expect(JSON.parse(forgedReview.body).view.title.text).toBe('Not allowed');

    const forgedConfirm = await intruder.interaction(
      intruder.viewSubmission({ view: confirmation, values: {} }),
    );
    expect(JSON.parse(forgedConfirm.body).response_action).toBe('update');
    expect(textOf(JSON.parse(forgedConfirm.body).view)).toContain('EDITORS');

    const mark = h.slack.calls.length;
    await intruder.interaction(
      intruder.blockAction({
        actionId: 'perms_category',
        selectedOption: { value: 'Groups' },
        view: editor,
        values: {},
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.slack.calls.slice(mark).filter((c) => c.method === 'views.update')).toHaveLength(0);

    expect(puts(h)).toHaveLength(0);
    const refusals = h.logs
      .records()
      .filter((r) => r.msg === 'permission edit refused: not an editor');
    expect(refusals.map((r) => r.attempt)).toEqual(['review', 'confirm', 'switch category']);
    expect(refusals.every((r) => r.user === 'U0INTRUDER')).toBe(true);
  });

  it('refuses everything to people outside VIEWERS, before CometChat is asked', async () => {
    h = await startHarness({ env: { VIEWERS: 'U0VIEWER', EDITORS: 'U0OPERATOR' } });
    const text = await refusedCommand(h, driverFor(h, 'U0STRANGER'), 'roles');
    expect(text).toContain('VIEWERS');
    const shortcut = driverFor(h, 'U0STRANGER');
    const mark = h.slack.responses.length;
    await shortcut.interaction(
      shortcut.messageShortcut({
        callbackId: 'lookup_call_message',
        message: { text: 'v1.us.sandbox-app.1700000000abcdef0001', ts: '1.2' },
      }),
    );
    expect(textOf((await h.slack.nextResponse(mark)).body)).toContain('VIEWERS');
    expect(h.sandbox.requests).toHaveLength(0);

    const viewer = await refusedCommand(h, driverFor(h, 'U0VIEWER'), 'roles');
    expect(viewer).toContain('CometChat roles');
    const editor = await refusedCommand(h, h.driver, 'roles');
    expect(editor).toContain('CometChat roles');
  });
});

describe('audit trail', () => {
  let h: Harness;
  afterEach(async () => {
    h.checkAllPayloads();
    await h.stop();
  });

  it('records every attempt, posts it to the audit channel, and lists it newest first', async () => {
    h = await startHarness({ env: { AUDIT_CHANNEL: 'C0AUDIT' } });
    const { confirmation } = await preparedConfirmation(h);
    await confirm(h, confirmation);

    h.sandbox.inject({
      kind: 'status',
      status: 500,
      method: 'PUT',
      times: Number.POSITIVE_INFINITY,
    });
    const second = await preparedConfirmation(h, 'editMessage');
    await confirm(h, second.confirmation);
    h.sandbox.clearFaults();

    const posts = h.slack.calls.filter((c) => c.method === 'chat.postMessage');
    expect(posts.map((p) => p.args.channel)).toEqual(['C0AUDIT', 'C0AUDIT']);
    expect(textOf(posts[0]?.args)).toContain('applied');
    expect(textOf(posts[1]?.args)).toContain('failed');

    const list = await refusedCommand(h, h.driver, 'audit default');
    expect(list).toContain('2 records');
    expect(list.indexOf('failed')).toBeLessThan(list.indexOf('applied'));
    expect(list).toMatch(/sendMessage.*allow → deny/);
    const events = h.logs.records().filter((r) => r.event === 'permission_change');
    expect(events).toHaveLength(2);
    expect(puts(h).length).toBeGreaterThanOrEqual(2);
  });

  it('keeps the record and applies the change when the audit channel refuses the post', async () => {
    h = await startHarness({ env: { AUDIT_CHANNEL: 'C0AUDIT' } });
    h.slack.fail('chat.postMessage', { error: 'not_in_channel', times: 5 });
    const { confirmation } = await preparedConfirmation(h);
    const { outcome } = await confirm(h, confirmation);
    expect(textOf(outcome)).toContain('Resulting permissions');
    expect(h.logs.text()).toContain('audit post failed');
    const list = await refusedCommand(h, h.driver, 'audit');
    expect(list).toContain('1 record');
  });
});
