import { describe, expect, it } from 'vitest';
import { SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import type { StoredView } from '../../offline/slack-standin/web-api.ts';
import { editorShown, submitView } from '../../offline/stack/editor-steps.ts';
import type { Access } from '../../src/access/access.ts';
import { createApps, signedOption, signedValue, UNSIGNED_REFUSAL } from '../../src/apps/apps.ts';
import type { CometChatClient } from '../../src/cometchat/client.ts';
import { ACTIONS, CALLBACKS } from '../../src/slack/ids.ts';
import { createMemoryStore, type Store } from '../../src/store/store.ts';
import { commandReply, type Harness, signedJson, signedTestValue, textOf } from './harness.ts';
import { puts, reviewFlip, useHarnessStarter } from './support.ts';

// Issue 42, item 3: with ONE app configured (the common install), a value that comes back from
// Slack without a valid signature of that app (unsigned as versions before signing wrote it, made by
// hand, tampered with, cut short, or signed by another install) is refused with one sentence
// and changes nothing: nothing is sent to CometChat, nothing stored, nothing audited. One test
// per kind of value: a button's value, a modal's metadata, an option's value. Each ends with the
// genuine value doing what it does, so that the refusals are the signature's.

const WEBHOOK_ENV = {
  COMETCHAT_WEBHOOK_USER: 'cometchat-hooks',
  COMETCHAT_WEBHOOK_PASSWORD: 'a-webhook-password-of-some-length',
};

/** Store methods that write (the audit trail, approvals, subscriptions, claims, known maps). */
const WRITES = /^(set|put|append|claim|renew|release|remove|keep)/;

/** A memory store that lists every write made through it, by method name. */
function watchedStore(): { store: Store; writes: string[] } {
  const inner = createMemoryStore();
  const writes: string[] = [];
  const store = new Proxy(inner, {
    get(target, key, receiver) {
      const member: unknown = Reflect.get(target, key, receiver);
      if (typeof member !== 'function' || typeof key !== 'string') return member;
      return (...args: unknown[]) => {
        if (WRITES.test(key)) writes.push(key);
        return (member as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, writes };
}

/** The default app as another install of this app has it: the same name, another API key. */
const otherInstall = (() => {
  const [app] = createApps([
    {
      name: 'default',
      appId: 'default-id',
      region: 'us',
      apiKey: 'another-install-api-key',
      cometchat: {} as CometChatClient,
      access: {} as Access,
    },
  ]).all;
  if (!app) throw new Error('no app');
  return app;
})();

/** `value` with its first character changed: same length, another signature or body. */
function flipFirst(value: string): string {
  return `${value.startsWith('A') ? 'B' : 'A'}${value.slice(1)}`;
}

/** Wrongly signed versions of a genuine value: tampered, cut short, of another install. */
function wronglySigned(genuine: string, body: Record<string, unknown>, edit: [string, string]) {
  const tampered = genuine.replace(edit[0], edit[1]);
  expect(tampered).not.toBe(genuine);
  return {
    'its body edited': tampered,
    'its signature edited': flipFirst(genuine),
    'cut short': genuine.slice(0, -4),
    'its signature cut short': genuine.slice(0, 20) + genuine.slice(genuine.indexOf('.')),
    'signed by another install': signedValue(otherInstall, body),
  };
}

/** The text of what reached the person since: replies to response_urls, and posts. */
function textsSince(h: Harness, responses: number, calls: number): string {
  return [
    ...h.slack.responses.slice(responses).map((r) => textOf(r.body)),
    ...h.slack.calls
      .slice(calls)
      .filter((c) => c.method === 'chat.postMessage' || c.method === 'chat.postEphemeral')
      .map((c) => textOf(c.args)),
  ].join('\n');
}

/** Nothing reached CometChat, nothing was stored, no modal was opened, pushed or updated. */
function expectNothingChanged(h: Harness, writes: readonly string[], calls: number): void {
  expect(h.sandbox.requests).toEqual([]);
  expect(writes).toEqual([]);
  expect(h.slack.calls.slice(calls).filter((c) => c.method.startsWith('views.'))).toEqual([]);
}

describe('with one app configured, a value without a valid signature', () => {
  const start = useHarnessStarter();
  const oneApp = async () => {
    const watched = watchedStore();
    const h = await start({ store: watched.store, env: WEBHOOK_ENV });
    expect(h.config.cometchat.apps.map((app) => app.name)).toEqual(['default']);
    return { h, ...watched };
  };

  it('on a button is refused with the sentence, and nothing is sent, stored or opened', async () => {
    const { h, store, writes } = await oneApp();
    // A subscription a forged Remove would delete: its id is a hash anyone can compute.
    await commandReply(h, 'subscribe recordings', h.driver, { channel_id: 'C0ALERTS' });
    const [subscription] = await store.listSubscriptions({ channel: 'C0ALERTS' });
    if (!subscription) throw new Error('no subscription');
    const role = { role: 'moderator' };
    const call = { sessionId: SANDBOX_SESSION_IDS.groupOngoing, page: 1 };
    const account = { uid: 'cometchat-uid-4', to: 'deactivated' };
    const genuineEdit = signedTestValue(h, role);
    const cases: [string, string, string][] = [
      // As versions before signing wrote them, and as someone would write them by hand.
      ['bare role id', ACTIONS.editPermissions, 'moderator'],
      ['unsigned', ACTIONS.editPermissions, JSON.stringify(role)],
      [
        'unsigned, naming its app',
        ACTIONS.editPermissions,
        JSON.stringify(signedJson(genuineEdit)),
      ],
      ...Object.entries(wronglySigned(genuineEdit, role, ['moderator', 'admin'])).map(
        ([how, value]): [string, string, string] => [how, ACTIONS.editPermissions, value],
      ),
      ['unsigned', ACTIONS.roleDetails, JSON.stringify(role)],
      ['unsigned', `${ACTIONS.rolesPage}_next`, JSON.stringify({ page: 2 })],
      ['unsigned', ACTIONS.callParticipants, JSON.stringify(call)],
      ['unsigned', ACTIONS.callDetails, JSON.stringify(call)],
      ['unsigned', ACTIONS.userAccount, JSON.stringify(account)],
      ['unsigned', ACTIONS.userChangeRole, JSON.stringify({ uid: account.uid })],
      ['unsigned', ACTIONS.approveChange, JSON.stringify({ id: 'f'.repeat(24) })],
      ['unsigned', ACTIONS.removeSubscription, JSON.stringify({ id: subscription.id })],
    ];
    h.sandbox.requests.length = 0;
    writes.length = 0;
    const calls = h.slack.calls.length;
    for (const [how, actionId, value] of cases) {
      const responses = h.slack.responses.length;
      const sent = await h.driver.interaction(
        h.driver.blockAction({ actionId, value, responseUrl: h.slack.responseUrl() }),
      );
      expect(sent.status, `${actionId} ${how}`).toBe(200);
      const reply = await h.slack.nextResponse(responses);
      expect(textOf(reply.body), `${actionId} ${how}`).toContain(UNSIGNED_REFUSAL);
    }
    // Let anything a listener started in the background reach the stand-ins.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expectNothingChanged(h, writes, calls);
    expect(await store.listSubscriptions({ channel: 'C0ALERTS' })).toEqual([subscription]);

    // The genuine value opens the editor, asking CometChat for the role.
    const mark = h.slack.calls.length;
    await h.driver.interaction(
      h.driver.blockAction({ actionId: ACTIONS.editPermissions, value: genuineEdit }),
    );
    expect(textOf(await editorShown(h, mark))).toContain('moderator');
    expect(h.sandbox.requests.length).toBeGreaterThan(0);
  });

  it("in a modal's metadata is refused in the modal, and nothing is sent, stored or audited", async () => {
    const { h, store, writes } = await oneApp();
    const { view: editor, confirmation } = await reviewFlip(h);
    const genuine = String(confirmation.private_metadata);
    const body = signedJson(genuine);
    const { app: _app, ...withoutApp } = body;
    const forged: Record<string, string> = {
      unsigned: JSON.stringify(withoutApp),
      'unsigned, naming its app': JSON.stringify(body),
      ...wronglySigned(genuine, body, ['"after":"deny"', '"after":"allow"']),
    };
    h.sandbox.requests.length = 0;
    writes.length = 0;
    const calls = h.slack.calls.length;
    // "Apply" on a confirmation whose metadata is not signed here.
    for (const [how, metadata] of Object.entries(forged)) {
      const answer = await submitView(h, { ...confirmation, private_metadata: metadata }, {});
      expect(answer.status, how).toBe(200);
      expect(answer.response_action, how).toBe('update');
      expect(textOf(answer.view), how).toContain(UNSIGNED_REFUSAL);
    }
    // "Review changes" on an editor whose metadata is unsigned.
    const unsignedEditor: StoredView = {
      ...editor,
      private_metadata: JSON.stringify(signedJson(editor.private_metadata)),
    };
    const review = await submitView(h, unsignedEditor, {});
    expect(review.response_action).toBe('update');
    expect(textOf(review.view)).toContain(UNSIGNED_REFUSAL);
    // Switching the category of that editor: told in a message, the modal left as it is.
    const responses = h.slack.responses.length;
    const before = h.slack.calls.length;
    await h.driver.interaction(
      h.driver.blockAction({
        actionId: ACTIONS.permissionsCategory,
        selectedOption: { value: 'Calls' },
        view: unsignedEditor,
      }),
    );
    await h.slack.waitFor(
      () => textsSince(h, responses, before).includes(UNSIGNED_REFUSAL) || undefined,
    );
    // The picked role of a user change, and the reason of a rejection, on unsigned metadata.
    for (const [callbackId, metadata, values] of [
      [
        CALLBACKS.userRolePick,
        JSON.stringify({ uid: 'cometchat-uid-4', name: 'Ana', role: 'default' }),
        { user_role: { role: { type: 'static_select', selected_option: { value: 'vip' } } } },
      ],
      [
        CALLBACKS.rejectReason,
        JSON.stringify({ id: 'f'.repeat(24) }),
        { reject_reason: { reason: { type: 'plain_text_input', value: 'no' } } },
      ],
    ] as const) {
      // As Slack sends a modal: its type too (a body without it is refused at the edge).
      const view = {
        id: `V0${callbackId}`,
        type: 'modal',
        callback_id: callbackId,
        private_metadata: metadata,
      };
      const answer = await submitView(h, view as unknown as StoredView, values);
      expect(answer.response_action, callbackId).toBe('update');
      expect(textOf(answer.view), callbackId).toContain(UNSIGNED_REFUSAL);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.sandbox.requests).toEqual([]);
    expect(writes).toEqual([]);
    expect((await store.listAudit({ offset: 0, limit: 10 })).total).toBe(0);
    // No modal was touched by a Web API call: every answer above came in the acknowledgement.
    expect(h.slack.calls.slice(calls).filter((c) => c.method.startsWith('views.'))).toEqual([]);

    // The genuine confirmation applies the change, once.
    const applied = await submitView(h, confirmation, {});
    expect(applied.response_action).toBe('update');
    await h.slack.waitFor(() => (puts(h).length > 0 ? true : undefined));
    expect(puts(h)).toHaveLength(1);
  });

  it("on an option (the Home tab's role picker) is refused, and nothing is sent or opened", async () => {
    const { h, writes } = await oneApp();
    const home = await homeWithPicker(h);
    const picker = (home.blocks as { elements?: { action_id?: string; options?: unknown }[] }[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === ACTIONS.homeEditRole);
    const options = (picker?.options ?? []) as { value: string }[];
    const genuine = options.find((o) => o.value.endsWith('.moderator'))?.value;
    if (!genuine) throw new Error('the picker offers no moderator');
    const forged: Record<string, string> = {
      // The previous version's `<app>:<role>`, and a bare role id.
      'as the previous version wrote it': 'default:moderator',
      'bare role id': 'moderator',
      'its role edited': genuine.replace('.moderator', '.admin'),
      'its signature edited': flipFirst(genuine),
      'its signature cut short': genuine.slice(1),
      'cut short': genuine.slice(0, -1),
      'signed by another install': signedOption(otherInstall, 'moderator'),
    };
    h.sandbox.requests.length = 0;
    writes.length = 0;
    const calls = h.slack.calls.length;
    for (const [how, value] of Object.entries(forged)) {
      const responses = h.slack.responses.length;
      const before = h.slack.calls.length;
      const sent = await h.driver.interaction(
        h.driver.blockAction({
          actionId: ACTIONS.homeEditRole,
          selectedOption: { value },
          view: home,
        }),
      );
      expect(sent.status, how).toBe(200);
      await h.slack.waitFor(
        () => textsSince(h, responses, before).includes(UNSIGNED_REFUSAL) || undefined,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expectNothingChanged(h, writes, calls);

    // The genuine option opens the editor of its role.
    const mark = h.slack.calls.length;
    await h.driver.interaction(
      h.driver.blockAction({
        actionId: ACTIONS.homeEditRole,
        selectedOption: { value: genuine },
        view: home,
      }),
    );
    expect(textOf(await editorShown(h, mark))).toContain('moderator');
  });
});

/** Opens the operator's Home tab and resolves with it once it offers the role picker. */
async function homeWithPicker(h: Harness): Promise<StoredView> {
  const mark = h.slack.calls.length;
  const sent = await h.driver.event(h.driver.homeOpened());
  expect(sent.status).toBe(200);
  await h.slack.waitFor(() =>
    h.slack.calls
      .slice(mark)
      .find(
        (c) =>
          c.method === 'views.publish' && JSON.stringify(c.args.view).includes('home_edit_role'),
      ),
  );
  const home = h.slack.homes.get('U0OPERATOR');
  if (!home) throw new Error('no Home tab');
  return home;
}
