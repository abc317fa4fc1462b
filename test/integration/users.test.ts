import { describe, expect, it } from 'vitest';
import { submitView } from '../../offline/stack/editor-steps.ts';
import { defaultPermissions } from '../../src/cometchat/catalogue.ts';
import { ACTIONS, CALLBACKS } from '../../src/slack/ids.ts';
import { createMemoryStore } from '../../src/store/store.ts';
import {
  actionButtons,
  blocksOf,
  commandReply,
  expectNoInjectedMarkup,
  expectNoMentions,
  interactionReply,
  textOf,
} from './harness.ts';
import { applyChange, driverAs, reviewFlip, useSharedHarness } from './support.ts';

// The user side through the real app against the CometChat stand-in's seeded users: the card,
// the search, "can", and the buttons between them.

const store = createMemoryStore();

/** What this app would know after changing `role` through the editor. */
async function knownRole(role: string, overrides: Record<string, string | string[] | null>) {
  await store.setKnownPermissions({
    app: 'default',
    role,
    permissions: { ...defaultPermissions(), ...overrides },
    seenAt: Date.UTC(2026, 10, 20),
  });
}

function tableRows(payload: Record<string, unknown>): string[][] {
  const table = blocksOf(payload).find((b) => b.type === 'table') as
    | { rows: { type: string; text?: string }[][] }
    | undefined;
  return (table?.rows ?? []).map((row) => row.map((cell) => cell.text ?? textOf(cell)));
}

describe('users through the real app', () => {
  const h = useSharedHarness({ store }, { resetAfterEach: true });

  it("shows a user's card: uid exact, role, account, what is known of the role, and buttons", async () => {
    const reply = await commandReply(h, 'user cometchat-uid-2');
    expect(reply.response_type).toBe('ephemeral');
    const text = textOf(reply);
    expect(text).toContain('`cometchat-uid-2`');
    expect(text).toContain('George Alan');
    expect(text).toContain('`support-agent`');
    expect(text).toContain(':large_green_circle: active');
    expect(text).toContain('This app has never changed `support-agent`');
    // The operator is a workspace admin, who edit when EDITORS is not set.
    expect(actionButtons(reply).map((b) => b.action_id)).toEqual([
      ACTIONS.userChangeRole,
      ACTIONS.userAccount,
      ACTIONS.editPermissions,
      ACTIONS.userCalls,
      // The user's dashboard page (issue 49).
      ACTIONS.openInCometChat,
    ]);
  });

  it('says a deactivated account is deactivated, and names stay inert text', async () => {
    const reply = await commandReply(h, 'user mallory-markup');
    expect(textOf(reply)).toContain(':no_entry: deactivated');
    // The card's own `<!date>` tokens are its markup; the name's `<!channel>` must not be.
    expect(textOf(reply)).not.toContain('<!channel>');
    expectNoInjectedMarkup(reply);
  });

  it('asks CometChat for a uid typed in capitals as it stores uids, in lower case', async () => {
    const mark = h.sandbox.requests.length;
    const reply = await commandReply(h, 'user CometChat-UID-2');
    expect(textOf(reply)).toContain('George Alan');
    expect(textOf(reply)).toContain('`cometchat-uid-2`');
    const asked = h.sandbox.requests.slice(mark).filter((r) => r.path.startsWith('/v3/users/'));
    expect(asked.map((r) => r.path)).toContain('/v3/users/cometchat-uid-2');
    expect(asked.map((r) => r.path).filter((p) => /[A-Z]/.test(p))).toEqual([]);
  });

  it('answers an unknown uid with one sentence and the service code', async () => {
    const reply = await commandReply(h, 'user nobody-here');
    expect(textOf(reply)).toContain('CometChat has no user with that uid (`ERR_UID_NOT_FOUND`)');
    expect(actionButtons(reply)).toEqual([]);
  });

  it('refuses a uid that cannot be one before asking CometChat', async () => {
    const before = h.sandbox.requests.length;
    const reply = await commandReply(h, `user ${'x'.repeat(101)}`);
    expect(textOf(reply)).toContain('A uid is at most 100 characters.');
    expect(h.sandbox.requests.length).toBe(before);
  });

  it('lists active users 10 a page, with Details per user and page buttons that keep the filters', async () => {
    const first = await commandReply(h, 'users');
    const rows = tableRows(first);
    expect(rows[0]).toEqual(['#', 'Uid', 'Name', 'Role', 'Status', 'Account', 'Last active']);
    expect(rows).toHaveLength(11);
    expect(rows.slice(1).every((row) => row[5] === 'active')).toBe(true);
    const details = actionButtons(first).filter((b) => b.action_id === ACTIONS.userDetails);
    expect(details).toHaveLength(10);
    const next = actionButtons(first).find((b) => b.action_id === `${ACTIONS.usersPage}_next`);
    const second = await interactionReply(
      h,
      h.driver.blockAction({ actionId: `${ACTIONS.usersPage}_next`, value: next?.value ?? '' }),
    );
    expect(second.replace_original).toBe(true);
    expect(textOf(second)).toContain('page 2 of');
  });

  it('narrows by the start of a uid or name, by role, and to deactivated accounts', async () => {
    const customers = tableRows(await commandReply(h, 'users customer'));
    expect(customers.slice(1).map((row) => row[1])).toEqual([
      'customer-1001',
      'customer-1002',
      'customer-1004',
    ]);
    const premium = tableRows(await commandReply(h, 'users role:premium'));
    expect(premium.slice(1).every((row) => row[3] === 'premium')).toBe(true);
    const deactivated = tableRows(await commandReply(h, 'users deactivated'));
    expect(deactivated.slice(1).map((row) => row[5])).toEqual(
      Array(deactivated.length - 1).fill('deactivated'),
    );
    expect(deactivated.slice(1).map((row) => row[1])).toContain('mallory-markup');
  });

  it("a Details button opens that user's card beside the list", async () => {
    const list = await commandReply(h, 'users ana');
    const details = actionButtons(list).find((b) => b.action_id === ACTIONS.userDetails);
    const card = await interactionReply(
      h,
      h.driver.blockAction({ actionId: ACTIONS.userDetails, value: details?.value ?? '' }),
    );
    expect(card.replace_original).toBe(false);
    expect(textOf(card)).toContain('`ana_souza`');
  });

  it("Find their calls runs the call search for that user's uid", async () => {
    const card = await commandReply(h, 'user cometchat-uid-1');
    const find = actionButtons(card).find((b) => b.action_id === ACTIONS.userCalls);
    const mark = h.sandbox.requests.length;
    const calls = await interactionReply(
      h,
      driverAs(h, 'U0OPERATOR').blockAction({
        actionId: ACTIONS.userCalls,
        value: find?.value ?? '',
      }),
    );
    const search = h.sandbox.requests.slice(mark).find((r) => r.path === '/v3/calls');
    expect(search?.query.uid).toBe('cometchat-uid-1');
    expect(textOf(calls)).toContain('cometchat-uid-1');
  });

  describe('can', () => {
    it('is allowed when every value was set through this app and nothing blocks, naming that change', async () => {
      // A change to the role through the editor: CometChat answers with the role's whole map,
      // which the app keeps with the change's reference. deleteMessage is not in the walk.
      await applyChange(h, { role: 'admin', key: 'deleteMessage', value: 'deny' });
      const [change] = (await store.listAudit({ role: 'admin', offset: 0, limit: 1 })).records;
      expect(change?.outcome).toBe('applied');
      const ref = change?.ref ?? 'no change recorded';
      const reply = await commandReply(h, 'user cometchat-uid-1 can sendMessage cometchat-uid-3');
      expect(textOf(reply)).toContain(':white_check_mark: *Allowed.*');
      // Each value's source: the date of the change, and its reference (hex) in a code span.
      const source = new RegExp(
        `\\(as this app last set the role, <!date[^>]*> \\(ref \`${ref}\`\\)\\)`,
      );
      expect(textOf(reply)).toMatch(source);
    });

    it('is denied by the mode `friends` between two who are not friends', async () => {
      await knownRole('support-agent', { 'sendMessage.mode': 'friends' });
      const reply = await commandReply(h, 'user cometchat-uid-2 can sendMessage cometchat-uid-3');
      expect(textOf(reply)).toContain(
        ':no_entry: *Denied by* *Message Sending Mode* (`sendMessage.mode`) = `friends`',
      );
      // A map stored without a reference (as an earlier version stored them): the date alone.
      expect(textOf(reply)).toMatch(/\(as this app last set the role, <!date[^>]*>\):/);
      expect(textOf(reply)).not.toContain('(ref ');
      const friends = await commandReply(h, 'user cometchat-uid-2 can sendMessage cometchat-uid-1');
      expect(textOf(friends)).toContain('is a friend');
    });

    it("is denied by `allowedReceiverRoles` when the other user's role is not listed", async () => {
      await knownRole('premium', { 'sendMessage.allowedReceiverRoles': ['admin'] });
      const reply = await commandReply(h, 'user cometchat-uid-4 can sendMessage cometchat-uid-5');
      expect(textOf(reply)).toContain(
        ':no_entry: *Denied by* *Message Receiver Roles* (`sendMessage.allowedReceiverRoles`) = `admin`',
      );
    });

    it('is denied when one blocked the other, whatever is known of the role', async () => {
      const reply = await commandReply(h, 'user cometchat-uid-5 can sendMessage cometchat-uid-7');
      expect(textOf(reply)).toContain('`cometchat-uid-5` blocked `cometchat-uid-7`');
      expect(textOf(reply)).toContain(':no_entry: *Denied*');
    });

    it('cannot tell for a role this app never changed, and says what the defaults give', async () => {
      const reply = await commandReply(h, 'user customer-1004 can initiateCall customer-1001');
      expect(textOf(reply)).toContain(':grey_question: *Cannot tell*');
      expect(textOf(reply)).toContain("CometChat offers no read of a role's permissions");
      expect(textOf(reply)).toContain('By the documented defaults it would be allowed.');
    });

    it('lists the action keys for an action that is not one', async () => {
      const reply = await commandReply(h, 'user cometchat-uid-1 can fly');
      expect(textOf(reply)).toContain('There is no action `fly`.');
      expect(textOf(reply)).toContain('`sendMessage`');
    });
  });

  it("the permission editor's review says how many users hold the role", async () => {
    const { confirmation } = await reviewFlip(h, 'sendMessage', 'premium');
    // premium: cometchat-uid-4, cometchat-uid-9, ana_souza, customer-1001, customer-1002.
    expect(textOf(confirmation)).toContain('5 users hold this role: the change reaches them all.');
  });

  it('the review says "unknown" when CometChat cannot count, and still offers the change', async () => {
    h.sandbox.inject({ kind: 'status', status: 503, pathIncludes: '/v3/users', times: 10 });
    const { confirmation } = await reviewFlip(h, 'sendMessage', 'vip');
    expect(textOf(confirmation)).toContain('How many users hold this role: unknown');
  });

  it('"Look up user" on a message shows the card of each uid it names, and says when none', async () => {
    const before = h.slack.responses.length;
    await h.driver.interaction(
      h.driver.messageShortcut({
        callbackId: CALLBACKS.lookupUserMessage,
        message: { text: 'cometchat-uid-4 cannot call guest-9001, says ticket-77', ts: '1.000001' },
      }),
    );
    const cards = await h.slack.waitFor(() =>
      h.slack.responses.length >= before + 2 ? h.slack.responses.slice(before) : undefined,
    );
    expect(cards.map((r) => textOf(r.body).match(/User `([^`]+)`/)?.[1]).sort()).toEqual([
      'cometchat-uid-4',
      'guest-9001',
    ]);
    const none = h.slack.responses.length;
    await h.driver.interaction(
      h.driver.messageShortcut({
        callbackId: CALLBACKS.lookupUserMessage,
        message: { text: 'ticket-77 is about lunch', ts: '1.000002' },
      }),
    );
    const said = await h.slack.nextResponse(none);
    expect(textOf(said.body)).toContain(
      'No CometChat user is named in that message (looked for `ticket-77`)',
    );
  });

  it("the Home tab's Look up a user sends the card to the person's DM; a bad uid is said on its field", async () => {
    const mark = h.slack.calls.length;
    await h.driver.interaction(
      h.driver.blockAction({ actionId: ACTIONS.homeLookupUser, value: 'user' }),
    );
    const opened = await h.slack.nextCall('views.open', mark);
    const form =
      h.slack.views.get(String((opened.args.view as { id?: string }).id ?? '')) ??
      [...h.slack.views.values()].find((v) => v.callback_id === CALLBACKS.lookupUserModal);
    if (!form) throw new Error('no lookup form');
    const bad = await submitView(h, form, {
      user_uid: { uid: { type: 'plain_text_input', value: 'a b' } },
    });
    expect(bad.errors).toEqual({ user_uid: 'A uid cannot contain spaces.' });
    const sent = h.slack.calls.length;
    await submitView(h, form, {
      user_uid: { uid: { type: 'plain_text_input', value: 'ana_souza' } },
    });
    const dm = await h.slack.nextCall('chat.postMessage', sent);
    expect(textOf(dm.args)).toContain('`ana_souza`');
  });

  it('a dashboard link to a user unfurls into a card with Details', async () => {
    const url = 'https://app.cometchat.com/app/sandbox-app/users/cometchat-uid-6';
    const mark = h.slack.calls.length;
    await h.driver.event(h.driver.linkShared([url]));
    const call = await h.slack.waitFor(() =>
      h.slack.calls.slice(mark).find((c) => c.method === 'chat.unfurl'),
    );
    const card = (call.args.unfurls as Record<string, Record<string, unknown>>)[url];
    expect(textOf(card)).toContain('`cometchat-uid-6`');
    expectNoMentions(card);
    expect(JSON.stringify(card)).toContain(ACTIONS.userDetails);
  });
});
