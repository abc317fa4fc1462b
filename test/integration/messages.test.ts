import { describe, expect, it } from 'vitest';
import { SANDBOX_ACCOUNT_IDS } from '../../offline/cometchat-standin/account-seed.ts';
import type { SlackDriver } from '../../offline/slack-standin/driver.ts';
import type { StoredView } from '../../offline/slack-standin/web-api.ts';
import { currentView } from '../../offline/stack/editor-steps.ts';
import { ACTIONS, CALLBACKS } from '../../src/slack/ids.ts';
import { createMemoryStore, type Store } from '../../src/store/store.ts';
import {
  actionButtons,
  type Block,
  type Button,
  blocksOf,
  commandReply,
  type Harness,
  signedJson,
  textOf,
} from './harness.ts';
import { driverAs, useHarnessStarter } from './support.ts';

// A user's messages through the real app, against the stand-in's seeded messages: paged by
// CometChat's cursor both ways with nothing twice and nothing skipped, the text for moderators
// only (in no payload a viewer gets), and deletions on the road of changes: soft by default,
// permanent only after a last confirmation that names it, audited, nothing sent for bad input.

const PEOPLE = {
  EDITORS: 'U0OPERATOR,U0MOD1',
  MODERATORS: 'U0MOD1',
};
const EDITOR = 'U0OPERATOR';
const MODERATOR = 'U0MOD1';
const VIEWER = 'U0VIEWER';
const { uid: UID, messages: SEEDED } = SANDBOX_ACCOUNT_IDS;

/** The seeded user's messages in the sandbox now, newest first. */
function messagesOf(h: Harness) {
  return [...h.sandbox.state.accounts.messages.values()]
    .filter((message) => message.sender === UID)
    .sort((a, b) => Number(b.id) - Number(a.id));
}

/** Words of the user's texts (six letters or more) that name nothing anyone may see. */
function textWords(h: Harness): string[] {
  const texts = messagesOf(h).map((message) => String(message.data.text ?? ''));
  const visible = JSON.stringify([UID, SANDBOX_ACCOUNT_IDS, 'messages', 'deleted']).toLowerCase();
  const words = texts.flatMap((text) => text.match(/[A-Za-z]{6,}/g) ?? []);
  return [...new Set(words)].filter((word) => !visible.includes(word.toLowerCase()));
}

function leakedWords(payloads: unknown, words: readonly string[]): string[] {
  const json = JSON.stringify(payloads).toLowerCase();
  return words.filter((word) => json.includes(word.toLowerCase()));
}

/** Pages from `first` by `actionId` (Older or Newer) until there is none; every page's ids. */
async function pageThrough(
  h: Harness,
  driver: SlackDriver,
  first: Record<string, unknown>,
  actionId: string,
): Promise<{ pages: string[][]; last: Record<string, unknown> }> {
  const pages = [idsOn(first)];
  let page = first;
  while (buttonsOf(page).some((b) => b.action_id === actionId)) {
    page = await click(h, driver, page, actionId);
    pages.push(idsOn(page));
    if (pages.length > 100) throw new Error('paging does not end');
  }
  return { pages, last: page };
}

/** The DELETEs of messages CometChat was sent: the id, and whether it was permanent. */
function deletions(h: Harness) {
  return h.sandbox.requests.flatMap(({ method, path, body }) => {
    const match = method === 'DELETE' ? /^\/v3\/messages\/([^/]+)$/.exec(path) : null;
    if (!match) return [];
    const permanent =
      typeof body === 'object' && body !== null && 'permanent' in body && body.permanent === true;
    return [{ id: match[1] ?? '', permanent }];
  });
}

/** The section accessories (a message's Delete) and the actions' buttons of a reply. */
function buttonsOf(payload: Record<string, unknown>): Button[] {
  const accessories = blocksOf(payload)
    .map((block: Block) => block.accessory as Button | undefined)
    .filter((button): button is Button => button !== undefined);
  return [...accessories, ...actionButtons(payload)];
}

/** The message ids a page shows, in order (each line ends `id \`<id>\``). */
function idsOn(payload: Record<string, unknown>): string[] {
  return [...textOf(payload).matchAll(/id `(\d+)`/g)].map((m) => m[1] ?? '');
}

/** Clicks `actionId` of `message` as `driver`'s user; resolves with the reply that replaced it. */
async function click(
  h: Harness,
  driver: SlackDriver,
  message: Record<string, unknown>,
  actionId: string,
): Promise<Record<string, unknown>> {
  const button = buttonsOf(message).find((b) => b.action_id === actionId);
  if (!button?.value) throw new Error(`no ${actionId} in the message`);
  const mark = h.slack.responses.length;
  await driver.interaction(
    driver.blockAction({ actionId, value: button.value, responseUrl: h.slack.responseUrl() }),
  );
  return (await h.slack.nextResponse(mark)).body;
}

/** Clicks a button that opens a modal; resolves with the modal once it is filled. */
async function clickIntoModal(
  h: Harness,
  driver: SlackDriver,
  message: Record<string, unknown>,
  actionId: string,
): Promise<StoredView> {
  const button = buttonsOf(message).find((b) => b.action_id === actionId);
  if (!button?.value) throw new Error(`no ${actionId} in the message`);
  const mark = h.slack.calls.length;
  await driver.interaction(
    driver.blockAction({ actionId, value: button.value, responseUrl: h.slack.responseUrl() }),
  );
  const update = await h.slack.nextCall('views.update', mark);
  return currentView(h, String(update.args.view_id));
}

/** Submits `view` with `values`; resolves with Slack's answer and the view as it is then. */
async function submit(
  h: Harness,
  driver: SlackDriver,
  view: StoredView,
  values: Record<string, Record<string, unknown>> = {},
) {
  const exchange = await driver.interaction(
    driver.viewSubmission({ view, values: values as never }),
  );
  expect(exchange.status).toBe(200);
  return currentView(h, view.id);
}

/** Submits a review on the road; resolves with the outcome the modal then shows. */
async function apply(h: Harness, driver: SlackDriver, view: StoredView): Promise<StoredView> {
  const mark = h.slack.calls.length;
  await driver.interaction(driver.viewSubmission({ view, values: {} }));
  await h.slack.waitFor(() =>
    h.slack.calls
      .slice(mark)
      .find((c) => c.method === 'views.update' && c.args.view_id === view.id),
  );
  return currentView(h, view.id);
}

/** Everything that reached Slack since the marks: replies, posts, views (and acks' views). */
function payloadsSince(h: Harness, marks: { responses: number; calls: number; acks: number }) {
  return [
    ...h.slack.responses.slice(marks.responses).map((r) => r.body),
    ...h.slack.calls.slice(marks.calls).map((c) => c.args),
    ...h.slack.acks.slice(marks.acks).map((a) => a.payload),
  ];
}

const marksOf = (h: Harness) => ({
  responses: h.slack.responses.length,
  calls: h.slack.calls.length,
  acks: h.slack.acks.length,
});

describe('a user’s messages', () => {
  const start = useHarnessStarter();
  let store: Store;
  const withPeople = () => {
    store = createMemoryStore();
    return start({ store, env: PEOPLE });
  };

  it('refuses bad input in one sentence, and sends nothing', async () => {
    const h = await withPeople();
    const before = h.sandbox.requests.length;
    for (const [words, sentence] of [
      ['messages a.b', 'A uid is letters, digits'],
      ['messages ana since:yesterday', '`since:yesterday` is not a time'],
      ['messages ana group:sales with:bob', 'give one of them'],
      ['messages', 'Name the user'],
    ] as const) {
      expect(textOf(await commandReply(h, words))).toContain(sentence);
    }
    expect(h.sandbox.requests.length).toBe(before);
  });
});

describe('paging and the text', () => {
  const start = useHarnessStarter();

  it('pages older through every message and back newer: none twice, none skipped', async () => {
    const h = await start({ env: PEOPLE });
    const all = messagesOf(h).map((message) => message.id);
    expect(all.length).toBeGreaterThan(250);
    const moderator = driverAs(h, MODERATOR);
    const first = await commandReply(h, `messages ${UID}`, moderator);
    expect(idsOn(first)).toEqual(all.slice(0, 10));
    const older = await pageThrough(h, moderator, first, `${ACTIONS.messagesPage}_older`);
    expect(older.pages.flat()).toEqual(all);
    expect(older.pages.length).toBe(Math.ceil(all.length / 10));
    const newer = await pageThrough(h, moderator, older.last, `${ACTIONS.messagesPage}_newer`);
    // Back the same pages, in turn, to the newest.
    expect(newer.pages).toEqual([...older.pages].reverse());
    // The buttons carry CometChat's cursor and the filters, signed.
    const button = buttonsOf(first).find((b) => b.action_id === `${ACTIONS.messagesPage}_older`);
    expect(signedJson(button?.value)).toMatchObject({
      f: { u: UID },
      c: { a: 'prepend', i: all[9] },
    });
  });

  it('shows a moderator the text and a viewer none, in any payload or log line', async () => {
    const h = await start({ env: PEOPLE });
    const words = textWords(h);
    expect(words.length).toBeGreaterThan(10);
    const forModerator = await commandReply(h, `messages ${UID}`, driverAs(h, MODERATOR));
    // The check can fail: the moderator's own reply holds the texts.
    expect(leakedWords(forModerator, words).length).toBeGreaterThan(5);
    expect(textOf(forModerator)).toContain('You see their text as a moderator');

    const marks = marksOf(h);
    const viewer = driverAs(h, VIEWER);
    const first = await commandReply(h, `messages ${UID}`, viewer);
    const second = await click(h, viewer, first, `${ACTIONS.messagesPage}_older`);
    await click(h, viewer, second, `${ACTIONS.messagesPage}_newer`);
    await commandReply(h, `messages ${UID} with:${SANDBOX_ACCOUNT_IDS.directWith}`, viewer);
    const payloads = payloadsSince(h, marks);
    expect(payloads.length).toBeGreaterThanOrEqual(4);
    expect(leakedWords(payloads, words)).toEqual([]);
    expect(textOf(first)).toContain(`id \`${SEEDED.newest}\``);
    expect(textOf(first)).toContain('Only moderators see');
    // A viewer may not delete: no Delete at all.
    expect(
      buttonsOf(first)
        .map((b) => b.action_id)
        .join(),
    ).not.toContain('messages_delete');
    // Nowhere in the log, for anyone.
    const logged = h.logs.text().toLowerCase();
    expect(words.filter((word) => logged.includes(word.toLowerCase()))).toEqual([]);
  });

  it('narrows to the direct conversation, a group, files and deleted messages', async () => {
    const h = await start({ env: PEOPLE });
    const direct = await commandReply(
      h,
      `messages ${UID} with:${SANDBOX_ACCOUNT_IDS.directWith}`,
      driverAs(h, VIEWER),
    );
    const inDirect = messagesOf(h)
      .filter((m) => m.conversationId === SANDBOX_ACCOUNT_IDS.conversations.direct)
      .map((m) => m.id);
    expect(idsOn(direct)).toEqual(inDirect.slice(0, 10));
    expect(textOf(direct)).toContain(`to \`${SANDBOX_ACCOUNT_IDS.directWith}\``);
    const deleted = await commandReply(h, `messages ${UID} deleted`, driverAs(h, VIEWER));
    const deletedIds = messagesOf(h)
      .filter((m) => m.deletedAt !== undefined)
      .map((m) => m.id);
    expect(idsOn(deleted)).toEqual(deletedIds.slice(0, 10));
    const group = await commandReply(
      h,
      `messages ${UID} group:${SANDBOX_ACCOUNT_IDS.groups.lobby} attachments`,
      driverAs(h, VIEWER),
    );
    expect(textOf(group)).toContain(':paperclip:');
    expect(textOf(group)).toContain(`in group \`${SANDBOX_ACCOUNT_IDS.groups.lobby}\``);
  });
});

describe('deleting messages', () => {
  const start = useHarnessStarter();
  let store: Store;
  const withPeople = () => {
    store = createMemoryStore();
    return start({ store, env: PEOPLE });
  };

  it('deletes softly by default: one DELETE without permanent, audited without Revert', async () => {
    const h = await withPeople();
    const editor = driverAs(h, EDITOR);
    const page = await commandReply(h, `messages ${UID}`, editor);
    const id = SEEDED.newest;
    const review = await clickIntoModal(h, editor, page, `${ACTIONS.messagesDelete}:${id}`);
    expect(review.callback_id).toBe(CALLBACKS.permissionsConfirm);
    expect(textOf(review)).toContain('A soft delete');
    expect(deletions(h)).toEqual([]);
    const outcome = await apply(h, editor, review);
    expect(textOf(outcome)).toContain(`Applied to 1 message of \`${UID}\``);
    expect(deletions(h)).toEqual([{ id, permanent: false }]);
    expect(h.sandbox.state.accounts.messages.get(id)?.deletedAt).toBeDefined();
    const { records } = await store.listAudit({ offset: 0, limit: 10 });
    expect(records.map((r) => [r.userId, r.outcome, r.subject, r.changes])).toEqual([
      [
        EDITOR,
        'applied',
        { kind: 'messages', sender: UID, permanent: false },
        [{ key: id, before: 'sent', after: 'deleted', explicit: false }],
      ],
    ]);
    expect(leakedWords(records, textWords(h))).toEqual([]);
    const trail = await commandReply(h, 'audit', editor);
    expect(buttonsOf(trail).filter((b) => b.action_id.startsWith(ACTIONS.revertChange))).toEqual(
      [],
    );
    // The same review again sends nothing.
    await apply(h, driverAs(h, EDITOR), review);
    expect(deletions(h)).toHaveLength(1);
  });

  it('deletes permanently only after the last confirmation that names it', async () => {
    const h = await withPeople();
    const moderator = driverAs(h, MODERATOR);
    const page = await commandReply(h, `messages ${UID}`, moderator);
    const choice = await clickIntoModal(h, moderator, page, ACTIONS.messagesDeleteSeveral);
    expect(choice.callback_id).toBe(CALLBACKS.messagesDeleteChoose);
    const [a = '', b = ''] = idsOn(page);
    const chosen = await submit(h, moderator, choice, {
      messages_delete_items: {
        items: { type: 'multi_static_select', selected_options: [{ value: a }, { value: b }] },
      },
      messages_delete_how: {
        how: { type: 'radio_buttons', selected_option: { value: 'permanent' } },
      },
    });
    expect(chosen.callback_id).toBe(CALLBACKS.messagesDeletePermanent);
    expect(textOf(chosen)).toContain('*permanently*');
    expect(deletions(h)).toEqual([]);
    const last = await submit(h, moderator, chosen);
    expect(last.callback_id).toBe(CALLBACKS.permissionsConfirm);
    expect(textOf(last)).toContain('Delete 2 messages of');
    expect(textOf(last)).toContain('*permanently*? They cannot be brought back.');
    // Nothing after the review, nor after the last confirmation is shown: only its submit.
    expect(deletions(h)).toEqual([]);
    const outcome = await apply(h, moderator, last);
    expect(textOf(outcome)).toContain('deleted permanently');
    expect(deletions(h)).toEqual([
      { id: a, permanent: true },
      { id: b, permanent: true },
    ]);
    expect(h.sandbox.state.accounts.messages.has(a)).toBe(false);
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    expect(record).toMatchObject({
      outcome: 'applied',
      userId: MODERATOR,
      subject: { kind: 'messages', sender: UID, permanent: true },
    });
    expect(record?.changes.map((c) => [c.key, c.after])).toEqual([
      [a, 'deleted permanently'],
      [b, 'deleted permanently'],
    ]);
  });

  it('offers an editor who does not moderate no permanent delete, and refuses a forged one', async () => {
    const h = await withPeople();
    const editor = driverAs(h, EDITOR);
    const page = await commandReply(h, `messages ${UID}`, editor);
    const choice = await clickIntoModal(h, editor, page, ACTIONS.messagesDeleteSeveral);
    expect(JSON.stringify(choice)).not.toContain('"value":"permanent"');
    const [a = ''] = idsOn(page);
    const chosen = await submit(h, editor, choice, {
      messages_delete_items: {
        items: { type: 'multi_static_select', selected_options: [{ value: a }] },
      },
      messages_delete_how: {
        how: { type: 'radio_buttons', selected_option: { value: 'permanent' } },
      },
    });
    // "Permanently" was not offered: the choice is the soft delete's review.
    expect(chosen.callback_id).toBe(CALLBACKS.permissionsConfirm);
    expect(textOf(chosen)).toContain('A soft delete');
    await apply(h, editor, chosen);
    expect(deletions(h)).toEqual([{ id: a, permanent: false }]);
  });

  it('says a message is gone, and sends nothing, when it went meanwhile', async () => {
    const h = await withPeople();
    const editor = driverAs(h, EDITOR);
    const page = await commandReply(h, `messages ${UID}`, editor);
    const [a = '', b = ''] = idsOn(page);
    // Gone before Delete is clicked: one sentence in the modal.
    h.sandbox.state.accounts.messages.delete(a);
    const gone = await clickIntoModal(h, editor, page, `${ACTIONS.messagesDelete}:${a}`);
    expect(textOf(gone)).toContain(`Message \`${a}\` is no longer there`);
    // Gone after the review: out of date, nothing sent, no record.
    const review = await clickIntoModal(h, editor, page, `${ACTIONS.messagesDelete}:${b}`);
    h.sandbox.state.accounts.messages.delete(b);
    const outcome = await apply(h, editor, review);
    expect(textOf(outcome)).toContain(`Message \`${b}\` is no longer there`);
    expect(textOf(outcome)).toContain('nothing was sent');
    expect(deletions(h)).toEqual([]);
    expect((await store.listAudit({ offset: 0, limit: 10 })).records).toEqual([]);
  });

  it('refuses Delete to someone who may not edit', async () => {
    const h = await withPeople();
    const page = await commandReply(h, `messages ${UID}`, driverAs(h, EDITOR));
    const viewer = driverAs(h, VIEWER);
    const refused = await click(h, viewer, page, `${ACTIONS.messagesDelete}:${SEEDED.newest}`);
    expect(textOf(refused)).toContain("Only the people listed in the app's EDITORS setting may");
    expect(h.slack.calls.filter((c) => c.method === 'views.open')).toEqual([]);
    expect(deletions(h)).toEqual([]);
  });
});
