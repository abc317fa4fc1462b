import { describe, expect, it } from 'vitest';
import {
  confirm,
  editorShown,
  openEditor,
  withFieldSet,
} from '../../offline/stack/editor-steps.ts';
import { commandReply, commandText, tableRecords, textOf } from './harness.ts';
import { driverAs, puts, reviewChange, useHarnessStarter } from './support.ts';

describe('who may edit and view', () => {
  const start = useHarnessStarter();

  it('lets a workspace admin edit when EDITORS is not set, and refuses anyone else', async () => {
    const h = await start();
    h.slack.setUsers([
      { id: 'U0OPERATOR', is_admin: true },
      { id: 'U0MEMBER', is_admin: false },
    ]);
    await openEditor(h, 'default');
    const text = await commandText(h, 'perms default', driverAs(h, 'U0MEMBER'));
    expect(text).toContain('Only workspace admins and owners may change permissions');
    expect(h.slack.calls.filter((c) => c.method === 'views.open')).toHaveLength(1);
  });

  it('lets listed editors and members of a listed user group edit, and refuses an admin who is not listed', async () => {
    const h = await start({ env: { EDITORS: 'U0EDITOR,S0EDITORS' } });
    h.slack.setUsers([{ id: 'U0OPERATOR', is_admin: true }]);
    h.slack.setUserGroups({ S0EDITORS: ['U0GROUPIE'] });

    for (const user of ['U0EDITOR', 'U0GROUPIE']) {
      const mark = h.slack.calls.length;
      await driverAs(h, user).command('perms default');
      await h.slack.nextCall('views.open', mark);
    }
    const text = await commandText(h, 'perms default');
    expect(text).toContain("Only the people listed in the app's EDITORS setting");
    expect(h.slack.calls.filter((c) => c.method === 'views.open')).toHaveLength(2);
  });

  it('acknowledges `perms` and opens the editor within 3 s while three editor groups take 1.2 s each', async () => {
    const h = await start({ env: { EDITORS: 'S0EDITORS1,S0EDITORS2,S0EDITORS3' } });
    // Only the last group lists the user: asked one after another, the groups would take 3.6 s.
    h.slack.setUserGroups({ S0EDITORS1: ['U0OTHER'], S0EDITORS2: [], S0EDITORS3: ['U0GROUPIE'] });
    h.slack.setMethodLatency('usergroups.users.list', 1_200);
    const mark = h.slack.calls.length;
    // Real time: the stand-in stamps calls with Date.now, and refuses a trigger older than 3 s.
    const sentAt = Date.now();
    const sent = await driverAs(h, 'U0GROUPIE').command('perms default');
    expect(sent.status).toBe(200);
    expect(sent.elapsedMs).toBeLessThan(3_000);

    const opened = await h.slack.nextCall('views.open', mark);
    expect(opened.at - sentAt).toBeLessThan(3_000);
    const asked = h.slack.calls.slice(mark).filter((c) => c.method === 'usergroups.users.list');
    expect(asked.map((c) => c.args.usergroup).sort()).toEqual([
      'S0EDITORS1',
      'S0EDITORS2',
      'S0EDITORS3',
    ]);
    // The trigger was still good: Slack opened the modal, and it shows the editor.
    const editor = await editorShown(h, mark);
    expect(editor).toMatchObject({ callback_id: 'perms_editor' });
    expect(textOf(editor)).toContain('Allowed actions');
    expect(textOf(editor)).not.toContain('Reference:');
  });

  it('refuses the editor, saying Slack did not answer in time, when the groups take too long', async () => {
    const h = await start({ env: { EDITORS: 'S0EDITORS' } });
    h.slack.setUserGroups({ S0EDITORS: ['U0GROUPIE'] });
    h.slack.setMethodLatency('usergroups.users.list', 2_500);
    const mark = h.slack.calls.length;
    const text = await commandText(h, 'perms default', driverAs(h, 'U0GROUPIE'));
    expect(text).toContain('Slack did not answer in time');
    expect(h.slack.calls.slice(mark).filter((c) => c.method === 'views.open')).toHaveLength(0);
  });

  it('changes nothing when someone else submits or confirms an editor they did not open', async () => {
    const h = await start({ env: { EDITORS: 'U0OPERATOR' } });
    // The editor's confirmation for `sendMessage: deny`, prepared by the harness's own user.
    const { view: editor, confirmation } = await reviewChange(h, {
      key: 'sendMessage',
      value: 'deny',
    });
    const intruder = driverAs(h, 'U0INTRUDER');

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
    // Acknowledged at once; the refusal replaces the pending view once the check has run.
    const refused = await h.slack.waitFor(() =>
      h.slack.calls.find(
        (c) => c.method === 'views.update' && textOf(c.args.view).includes('EDITORS'),
      ),
    );
    expect(textOf(refused.args.view)).toContain('Not allowed');

    const mark = h.slack.calls.length;
    await intruder.interaction(
      intruder.blockAction({
        actionId: 'perms_category',
        selectedOption: { value: 'Groups' },
        view: editor,
        values: {},
      }),
    );
    // The refusal is logged once the check has run, and the switch ends there: nothing may
    // have changed in the view by then.
    await h.slack.waitFor(() =>
      h.logs
        .records()
        .find(
          (r) =>
            r.message === 'permission edit refused: not an editor' &&
            r.cometchat_ops.attempt === 'switch category',
        ),
    );
    expect(h.slack.calls.slice(mark).filter((c) => c.method === 'views.update')).toHaveLength(0);

    expect(puts(h)).toHaveLength(0);
    const refusals = h.logs
      .records()
      .filter((r) => r.message === 'permission edit refused: not an editor');
    expect(refusals.map((r) => r.cometchat_ops.attempt)).toEqual([
      'review',
      'confirm',
      'switch category',
    ]);
    expect(refusals.every((r) => r.user?.id === 'U0INTRUDER')).toBe(true);
  });

  it('refuses everything to people outside VIEWERS, before CometChat is asked', async () => {
    const h = await start({ env: { VIEWERS: 'U0VIEWER', EDITORS: 'U0OPERATOR' } });
    const text = await commandText(h, 'roles', driverAs(h, 'U0STRANGER'));
    expect(text).toContain('VIEWERS');
    const shortcut = driverAs(h, 'U0STRANGER');
    const mark = h.slack.responses.length;
    await shortcut.interaction(
      shortcut.messageShortcut({
        callbackId: 'lookup_call_message',
        message: { text: 'v1.us.sandbox-app.1700000000abcdef0001', ts: '1.2' },
      }),
    );
    expect(textOf((await h.slack.nextResponse(mark)).body)).toContain('VIEWERS');
    expect(h.sandbox.requests).toHaveLength(0);

    const viewer = await commandText(h, 'roles', driverAs(h, 'U0VIEWER'));
    expect(viewer).toContain('CometChat roles');
    const editor = await commandText(h, 'roles');
    expect(editor).toContain('CometChat roles');
  });
});

describe('audit trail', () => {
  const start = useHarnessStarter();

  it('records every attempt, posts it to the audit channel, and lists it newest first', async () => {
    const h = await start({ env: { AUDIT_CHANNEL: 'C0AUDIT' } });
    const { confirmation } = await reviewChange(h, { key: 'sendMessage', value: 'deny' });
    await confirm(h, confirmation);

    h.sandbox.inject({
      kind: 'status',
      status: 500,
      method: 'PUT',
      times: Number.POSITIVE_INFINITY,
    });
    const second = await reviewChange(h, { key: 'editMessage', value: 'deny' });
    await confirm(h, second.confirmation);
    h.sandbox.clearFaults();

    const posts = h.slack.calls.filter((c) => c.method === 'chat.postMessage');
    expect(posts.map((p) => p.args.channel)).toEqual(['C0AUDIT', 'C0AUDIT']);
    expect(textOf(posts[0]?.args)).toContain('applied');
    expect(textOf(posts[1]?.args)).toContain('failed');

    const list = await commandReply(h, 'audit default');
    expect(textOf(list)).toContain('2 records');
    const [newest, older] = tableRecords(list);
    expect([newest?.Outcome, older?.Outcome]).toEqual(['✘ failed', '✔ applied']);
    expect(older?.Changes).toMatch(/^Message Sending \(sendMessage\): allow → deny$/m);
    const events = h.logs.records().filter((r) => r.cometchat_ops.event === 'permission_change');
    expect(events).toHaveLength(2);
    expect(puts(h).length).toBeGreaterThanOrEqual(2);
  });

  it('keeps the record and applies the change when the audit channel refuses the post', async () => {
    const h = await start({ env: { AUDIT_CHANNEL: 'C0AUDIT' } });
    h.slack.fail('chat.postMessage', { error: 'not_in_channel', times: 5 });
    const { confirmation } = await reviewChange(h, { key: 'sendMessage', value: 'deny' });
    const { outcome } = await confirm(h, confirmation);
    expect(textOf(outcome)).toContain('Resulting permissions');
    expect(h.logs.text()).toContain('audit post failed');
    const list = await commandText(h, 'audit');
    expect(list).toContain('1 record');
  });
});
