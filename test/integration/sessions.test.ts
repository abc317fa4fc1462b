import { describe, expect, it } from 'vitest';
import { SANDBOX_ACCOUNT_IDS } from '../../offline/cometchat-standin/account-seed.ts';
import type { SlackDriver } from '../../offline/slack-standin/driver.ts';
import { confirm, currentView, submitView } from '../../offline/stack/editor-steps.ts';
import { SESSION_DROP_UNDOCUMENTED, SESSIONS_NO_REVERT } from '../../src/changes/kinds/sessions.ts';
import { sessionFingerprint } from '../../src/cometchat/sessions.ts';
import { DEACTIVATED_SESSIONS, SESSIONS_UNREAD } from '../../src/features/users/sessions-view.ts';
import { ACTIONS } from '../../src/slack/ids.ts';
import { createMemoryStore, type Store } from '../../src/store/store.ts';
import {
  actionButtons,
  type Button,
  blocksOf,
  commandReply,
  type Harness,
  signedTestValue,
  tableRecords,
  textOf,
} from './harness.ts';
import { driverAs, useHarnessStarter } from './support.ts';

// A user's sessions through the real app, against the stand-in's auth tokens: on the card
// (fingerprints, never a token, in anything Slack received or the app logged), _Sign out
// everywhere_ and _Revoke_ on the change road (reviewed, approved where the app asks, sent once
// as one DELETE, audited), and what has nothing to revoke.

const EDITORS = { EDITORS: 'U0OPERATOR,U0LEAD' };
const AUDIT_CHANNEL = 'C0AUDIT';
const APPROVAL_CHANNEL = 'C0APPROVE';
const { uid: UID, noSessions: NO_SESSIONS, deactivated: DEACTIVATED } = SANDBOX_ACCOUNT_IDS;

/** Every token the stand-in holds now, of every user. */
function tokensOf(h: Harness): string[] {
  return [...h.sandbox.state.accounts.authTokens.values()].flat().map((t) => t.authToken);
}

/** The user's tokens, newest first (as the card lists their sessions). */
function userTokens(h: Harness, uid: string) {
  return [...(h.sandbox.state.accounts.authTokens.get(uid) ?? [])].sort(
    (a, b) => b.createdAt - a.createdAt,
  );
}

/**
 * No token in anything that reached Slack (posts, response_url messages, views, the answers to
 * Slack's requests), in the app's log lines, or in the store's audit records.
 */
async function expectNoToken(h: Harness, tokens: readonly string[], store: Store) {
  expect(tokens.length).toBeGreaterThan(0);
  const seen = [
    JSON.stringify(h.slack.calls),
    JSON.stringify(h.slack.responses),
    JSON.stringify(h.slack.refusedResponses),
    JSON.stringify(h.slack.acks),
    JSON.stringify([...h.slack.views.values()]),
    h.logs.text(),
    JSON.stringify(await store.listAudit({ offset: 0, limit: 50 })),
  ].join('\n');
  for (const token of tokens) expect(seen).not.toContain(token);
}

/** The buttons beside a payload's sections (their accessories), in order. */
function accessories(payload: Record<string, unknown>): Button[] {
  return blocksOf(payload).flatMap((b) => {
    const accessory = b.accessory as Button | undefined;
    return b.type === 'section' && accessory?.action_id ? [accessory] : [];
  });
}

/** What the app asked CometChat to revoke. */
function revocations(h: Harness) {
  return h.sandbox.requests.filter((r) => r.method === 'DELETE' && r.path.includes('/auth_tokens'));
}

/** Clicks `button` as `user`; resolves with the modal it filled (after "Asking…"). */
async function clickIntoModal(h: Harness, button: Button | undefined, user = 'U0OPERATOR') {
  if (!button?.value) throw new Error('no such button on the card');
  const mark = h.slack.calls.length;
  const driver = driverAs(h, user);
  await driver.interaction(driver.blockAction({ actionId: button.action_id, value: button.value }));
  const update = await h.slack.nextCall('views.update', mark);
  return currentView(h, String(update.args.view_id));
}

const signOutOf = (card: Record<string, unknown>) =>
  accessories(card).find((b) => b.action_id === ACTIONS.userSignOut);
const revokeOf = (card: Record<string, unknown>, fingerprint: string) =>
  accessories(card).find(
    (b) => b.action_id === ACTIONS.userRevokeSession && b.value?.includes(`"${fingerprint}"`),
  );

describe("a user's sessions", () => {
  const start = useHarnessStarter();
  let store: Store;
  const withEditors = (env: Record<string, string> = {}) => {
    store = createMemoryStore();
    return start({ store, env: { ...EDITORS, ...env } });
  };

  it('shows three sessions on the card by fingerprint, the newest marked, and no token anywhere', async () => {
    const h = await withEditors();
    const tokens = tokensOf(h);
    const held = userTokens(h, UID);
    expect(held).toHaveLength(3);
    const card = await commandReply(h, `user ${UID}`);
    const text = textOf(card);
    expect(text).toContain('*Sessions*: 3 sessions');
    const fingerprints = held.map((t) => sessionFingerprint(t.authToken));
    for (const fingerprint of fingerprints) expect(text).toContain(`\`${fingerprint}\``);
    const lines = blocksOf(card)
      .map((b) => String((b.text as { text?: unknown } | undefined)?.text ?? ''))
      .filter((line) => fingerprints.some((f) => line.startsWith(`\`${f}\``)));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^`[0-9a-f]{8}` · web · began \d+ days ago/);
    expect(lines[0]).toContain('*newest*');
    expect(lines[1]).toContain('ios · began');
    expect(lines[1]).toContain('Support Chat 2.4.0');
    expect(lines.filter((line) => line.includes('*newest*'))).toHaveLength(1);
    // An editor's buttons beside them; a viewer's card has the sessions and none.
    expect(accessories(card).map((b) => b.action_id)).toEqual([
      ACTIONS.userSignOut,
      ACTIONS.userRevokeSession,
      ACTIONS.userRevokeSession,
      ACTIONS.userRevokeSession,
      ACTIONS.userContain,
    ]);
    const viewerCard = await commandReply(h, `user ${UID}`, driverAs(h, 'U0VIEWER'));
    expect(textOf(viewerCard)).toContain('*Sessions*: 3 sessions');
    expect(accessories(viewerCard)).toEqual([]);
    expect(revocations(h)).toEqual([]);
    await expectNoToken(h, tokens, store);
  });

  it('signs out everywhere with one DELETE after the review, once, audited and posted', async () => {
    const h = await withEditors({ AUDIT_CHANNEL });
    const tokens = tokensOf(h);
    const fingerprints = userTokens(h, UID).map((t) => sessionFingerprint(t.authToken));
    const card = await commandReply(h, `user ${UID}`);
    const review = await clickIntoModal(h, signOutOf(card));
    expect(textOf(review)).toContain(`Sign *Liam O'Brien* \`${UID}\` out everywhere?`);
    expect(textOf(review)).toContain(SESSION_DROP_UNDOCUMENTED);
    expect(textOf(review)).toContain(SESSIONS_NO_REVERT);
    expect(revocations(h)).toEqual([]);
    const { outcome } = await confirm(h, review);
    expect(textOf(outcome)).toContain(
      `Applied to user \`${UID}\`: signed out everywhere (3 sessions revoked).`,
    );
    expect(revocations(h).map((r) => `${r.method} ${r.path}`)).toEqual([
      `DELETE /v3/users/${UID}/auth_tokens`,
    ]);
    expect(userTokens(h, UID)).toEqual([]);
    // Submitted again (a double click, a replay): not sent again.
    const replay = await confirm(h, review);
    expect(textOf(replay.outcome)).toContain('was already submitted once; it was not sent again');
    expect(revocations(h)).toHaveLength(1);
    const [record] = (await store.listAudit({ offset: 0, limit: 5 })).records;
    expect(record).toMatchObject({
      outcome: 'applied',
      userId: 'U0OPERATOR',
      subject: { kind: 'user', uid: UID },
      changes: [{ key: 'sessions', before: fingerprints, after: [] }],
    });
    const post = await h.slack.waitFor(() =>
      h.slack.calls.find(
        (c) => c.method === 'chat.postMessage' && c.args.channel === AUDIT_CHANNEL,
      ),
    );
    expect(textOf(post.args)).toContain(UID);
    expect(textOf(post.args)).toContain('revoke all 3 sessions');
    const [row] = tableRecords(await commandReply(h, 'audit'));
    expect(row).toMatchObject({ User: UID, Changes: expect.stringMatching(/sessions.*→ none$/m) });
    // A revoked session cannot be restored: the post offers no Revert.
    expect(JSON.stringify(post.args)).not.toContain(ACTIONS.revertChange);
    // The same card's button again: nothing left to revoke, nothing sent.
    const again = await clickIntoModal(h, signOutOf(card));
    expect(textOf(again)).toContain(
      `\`${UID}\` has no sessions: there is nothing to revoke, and nothing was sent.`,
    );
    expect(revocations(h)).toHaveLength(1);
    await expectNoToken(h, tokens, store);
  });

  it('revokes one session with one DELETE of that token, and leaves the others', async () => {
    const h = await withEditors();
    const tokens = tokensOf(h);
    const [web, ios, android] = userTokens(h, UID);
    if (!web || !ios || !android) throw new Error('the seed has three sessions');
    const fingerprint = sessionFingerprint(ios.authToken);
    const card = await commandReply(h, `user ${UID}`);
    const review = await clickIntoModal(h, revokeOf(card, fingerprint));
    expect(textOf(review)).toContain(`Revoke session \`${fingerprint}\``);
    expect(textOf(review)).toContain('2 other sessions stay');
    expect(textOf(review)).toContain(SESSION_DROP_UNDOCUMENTED);
    const { outcome } = await confirm(h, review);
    expect(textOf(outcome)).toContain(`session \`${fingerprint}\` is revoked`);
    expect(revocations(h).map((r) => `${r.method} ${r.path}`)).toEqual([
      `DELETE /v3/users/${UID}/auth_tokens/${ios.authToken}`,
    ]);
    expect(userTokens(h, UID).map((t) => t.authToken)).toEqual([web.authToken, android.authToken]);
    const [record] = (await store.listAudit({ offset: 0, limit: 5 })).records;
    expect(record).toMatchObject({
      outcome: 'applied',
      changes: [
        {
          key: 'sessions',
          after: [web, android].map((t) => sessionFingerprint(t.authToken)),
        },
      ],
    });
    // The token was in the request's path: not in a log line for all that.
    await expectNoToken(h, tokens, store);
  });

  it('a revocation CometChat refuses is audited as failed; neither its logs nor its reply hold the token', async () => {
    const h = await withEditors();
    const tokens = tokensOf(h);
    const [web] = userTokens(h, UID);
    if (!web) throw new Error('the seed has three sessions');
    const card = await commandReply(h, `user ${UID}`);
    const review = await clickIntoModal(h, revokeOf(card, sessionFingerprint(web.authToken)));
    h.sandbox.inject({
      kind: 'status',
      status: 400,
      method: 'DELETE',
      pathIncludes: '/auth_tokens/',
    });
    const { outcome } = await confirm(h, review);
    expect(outcome.title).toMatchObject({ text: 'Change a user' });
    expect(textOf(outcome)).toMatch(/Reference: `[0-9a-f]+`/);
    expect(textOf(outcome)).toContain('to see their sessions now');
    expect(revocations(h)).toHaveLength(1);
    expect(userTokens(h, UID)).toHaveLength(3);
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    expect(record).toMatchObject({ outcome: 'failed', errorKind: 'bad_request' });
    // The failure is logged (the operation, its kind and code), with no token.
    expect(h.logs.text()).toContain('revokeSession');
    await expectNoToken(h, tokens, store);
  });

  it('sends nothing when the session to revoke is gone by Apply, or by the click', async () => {
    const h = await withEditors();
    const [, , android] = userTokens(h, UID);
    if (!android) throw new Error('the seed has three sessions');
    const fingerprint = sessionFingerprint(android.authToken);
    const card = await commandReply(h, `user ${UID}`);
    const review = await clickIntoModal(h, revokeOf(card, fingerprint));
    // The user signs out of that client meanwhile.
    h.sandbox.state.accounts.authTokens.set(
      UID,
      userTokens(h, UID).filter((t) => t.authToken !== android.authToken),
    );
    const { outcome } = await confirm(h, review);
    expect(textOf(outcome)).toContain(
      `Session \`${fingerprint}\` of \`${UID}\` is gone since the review (revoked, or signed out), so nothing was sent.`,
    );
    const stale = await clickIntoModal(h, revokeOf(card, fingerprint));
    expect(textOf(stale)).toContain(
      `Session \`${fingerprint}\` of \`${UID}\` is gone since the card was drawn`,
    );
    expect(revocations(h)).toEqual([]);
    expect((await store.listAudit({ offset: 0, limit: 5 })).records).toEqual([]);
  });

  it('asks for approval where the app does, and revokes once an approver approves', async () => {
    const h = await withEditors({ APPROVAL_CHANNEL });
    const tokens = tokensOf(h);
    const card = await commandReply(h, `user ${UID}`);
    const review = await clickIntoModal(h, signOutOf(card));
    expect(textOf(review)).toContain(`Ask for approval in <#${APPROVAL_CHANNEL}>`);
    const mark = h.slack.calls.length;
    await submitView(h, review, {});
    const post = await h.slack.nextCall('chat.postMessage', mark);
    expect(post.args.channel).toBe(APPROVAL_CHANNEL);
    expect(textOf(post.args)).toContain(`user \`${UID}\``);
    expect(textOf(post.args)).toContain('revoke all 3 sessions');
    expect(revocations(h)).toEqual([]);
    const approve = actionButtons({ blocks: post.args.blocks }).find(
      (b) => b.action_id === ACTIONS.approveChange,
    );
    const approver: SlackDriver = driverAs(h, 'U0LEAD');
    const decided = h.slack.calls.length;
    await approver.interaction(
      approver.blockAction({
        actionId: ACTIONS.approveChange,
        value: approve?.value ?? '',
        responseUrl: h.slack.responseUrl(),
        message: { ts: '1700000000.000300', blocks: post.args.blocks as unknown[] },
      }),
    );
    await h.slack.nextCall('chat.update', decided);
    expect(revocations(h).map((r) => `${r.method} ${r.path}`)).toEqual([
      `DELETE /v3/users/${UID}/auth_tokens`,
    ]);
    const [record] = (await store.listAudit({ offset: 0, limit: 5 })).records;
    expect(record).toMatchObject({
      outcome: 'applied',
      userId: 'U0OPERATOR',
      approval: { approvedBy: 'U0LEAD' },
      changes: [{ key: 'sessions', after: [] }],
    });
    await expectNoToken(h, tokens, store);
  });

  it('says a user with no sessions has none, and a click to sign them out sends nothing', async () => {
    const h = await withEditors();
    const card = await commandReply(h, `user ${NO_SESSIONS}`);
    expect(textOf(card)).toContain(`*Sessions*: none; \`${NO_SESSIONS}\` is signed in nowhere.`);
    expect(signOutOf(card)).toBeUndefined();
    // As the card of a moment ago would carry it, signed by the app.
    const button = {
      action_id: ACTIONS.userSignOut,
      value: signedTestValue(h, { uid: NO_SESSIONS }),
      text: { text: 'Sign out everywhere' },
    };
    const refused = await clickIntoModal(h, button);
    expect(textOf(refused)).toContain(
      `\`${NO_SESSIONS}\` has no sessions: there is nothing to revoke, and nothing was sent.`,
    );
    expect(revocations(h)).toEqual([]);
  });

  it("says a deactivated account's sessions cannot be read, and shows the rest of its card", async () => {
    const h = await withEditors();
    const tokens = tokensOf(h);
    const card = await commandReply(h, `user ${DEACTIVATED}`);
    expect(textOf(card)).toContain(':no_entry: deactivated');
    expect(textOf(card)).toContain(DEACTIVATED_SESSIONS);
    expect(accessories(card)).toEqual([]);
    const button = {
      action_id: ACTIONS.userSignOut,
      value: signedTestValue(h, { uid: DEACTIVATED }),
      text: { text: 'Sign out everywhere' },
    };
    const refused = await clickIntoModal(h, button);
    expect(textOf(refused)).toContain(`\`${DEACTIVATED}\` is deactivated`);
    expect(revocations(h)).toEqual([]);
    await expectNoToken(h, tokens, store);
  });

  it('keeps the rest of the card when the sessions cannot be read, and says so in one line', async () => {
    const h = await withEditors();
    h.sandbox.inject({
      kind: 'status',
      status: 403,
      method: 'GET',
      pathIncludes: '/auth_tokens',
      times: Number.POSITIVE_INFINITY,
    });
    const card = await commandReply(h, `user ${UID}`);
    expect(textOf(card)).toContain(`\`${UID}\``);
    expect(textOf(card)).toContain(':large_green_circle: active');
    expect(textOf(card)).toContain(SESSIONS_UNREAD);
    expect(actionButtons(card).map((b) => b.action_id)).toContain(ACTIONS.userChangeRole);
  });
});
