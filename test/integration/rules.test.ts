import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../offline/cometchat-standin/server.ts';
import type { StoredView } from '../../offline/slack-standin/web-api.ts';
import { modalShown, submitView } from '../../offline/stack/editor-steps.ts';
import { createSlackApp } from '../../src/app.ts';
import { createMetrics } from '../../src/observe/metrics.ts';
import { ACTIONS, CALLBACKS } from '../../src/slack/ids.ts';
import { createMemoryStore, type Store } from '../../src/store/store.ts';
import {
  actionButtons,
  commandReply,
  type Harness,
  sandboxOf,
  tableRows,
  textOf,
} from './harness.ts';
import { apply, revertReview } from './revert-steps.ts';
import { driverAs, useHarnessStarter } from './support.ts';

// Moderation rules through the real app, on two stand-in apps (`staging`, the first seed, and
// `prod`, the second: `profanity` and `spam-links` in both, each app's own otherwise): listed,
// compared, promoted through a second editor's approval (one PUT), and checked daily.

const APPROVALS = 'C0APPROVE';
const RULES_CHANNEL = 'C0RULES';
const ENV = { EDITORS: 'U0OPERATOR,U0LEAD', COMETCHAT_STAGING_APPROVAL_CHANNEL: APPROVALS };
const DAY = 24 * 60 * 60 * 1000;

/** The requests that changed a rule in `sandbox`, as `METHOD path`. */
function ruleWrites(sandbox: Sandbox): string[] {
  return sandbox.requests
    .filter((r) => r.method !== 'GET' && r.path.startsWith('/v3/moderation/rules'))
    .map((r) => `${r.method} ${r.path}`);
}

/** The review a _Promote to_ button of a list opens, once filled in. */
async function promoteFromList(h: Harness, list: Record<string, unknown>, action: string) {
  const button = actionButtons(list).find((b) => b.action_id === action);
  if (!button?.value) throw new Error(`no ${action} button`);
  const mark = h.slack.calls.length;
  await h.driver.interaction(
    h.driver.blockAction({
      actionId: action,
      value: button.value,
      responseUrl: h.slack.responseUrl(),
    }),
  );
  return modalShown(h, mark);
}

/** Asks for approval of a review; resolves with the request as posted. */
async function requestApproval(h: Harness, review: StoredView) {
  const mark = h.slack.calls.length;
  await submitView(h, review, {
    approval_reason: { reason: { type: 'plain_text_input', value: 'same as prod' } },
  });
  const post = await h.slack.nextCall('chat.postMessage', mark);
  expect(post.args.channel).toBe(APPROVALS);
  return {
    ts: '1700000000.000300',
    blocks: post.args.blocks as unknown[],
    text: textOf(post.args),
  };
}

/** Another instance of the app on the same store, its clock at `now`, for its periodic work. */
function checkingReplica(h: Harness, store: Store, now: number) {
  return createSlackApp({
    config: h.config,
    logger: h.logger,
    store,
    metrics: createMetrics({ defaultMetrics: false }),
    now: () => now,
  });
}

describe('moderation rules', () => {
  const start = useHarnessStarter();
  let store: Store;
  const twoApps = async () => {
    store = createMemoryStore();
    return (await start({ apps: ['staging', 'prod'], env: ENV, store })) as Harness;
  };

  it('lists the rules: state, action, conditions in one line, revision, Promote', async () => {
    const h = await twoApps();
    const list = await commandReply(h, 'prod rules');
    const text = textOf(list);
    expect(text).toContain('Moderation rules · prod');
    expect(text).toContain('*Profanity* `profanity` · enabled · active');
    expect(text).toContain('keyword contains list “profanity-en-strict” · 2 filters');
    expect(text).toMatch(/Revision `[^`]+_profanity_1`/);
    expect(actionButtons(list).map((b) => b.action_id)).toContain(
      `${ACTIONS.promoteRule}:staging:profanity`,
    );
    h.checkAllPayloads();
  });

  it('compares two apps: rules in one only, and each field that differs', async () => {
    const h = await twoApps();
    const reply = await commandReply(h, 'rules compare staging prod');
    expect(textOf(reply)).toContain('Compare rules in *staging* and *prod*: 4 rules differ');
    const rows = tableRows(reply);
    expect(rows).toContainEqual([
      'VIP greeting guard (vip-greeting-guard)',
      'the rule',
      'not in staging',
      'present',
    ]);
    expect(rows).toContainEqual([
      'Profanity (profanity)',
      'actions',
      'blockMessage',
      'blockMessage, dropMessage',
    ]);
    h.checkAllPayloads();
  });

  it('promotes a rule after a second editor approves: one PUT, audited, revision not reported', async () => {
    const h = await twoApps();
    const staging = sandboxOf(h, 'staging');
    // A first daily check has seen each rule's revision before the promotion.
    await commandReply(h, 'staging subscribe rules', h.driver, { channel_id: RULES_CHANNEL });
    const day = Date.parse('2026-11-20T08:00:00Z');
    await checkingReplica(h, store, day).features.periodic(h.logger);
    expect((await store.getSeenRevisions('staging')).get('profanity')?.revisionId).toMatch(
      /_profanity_2$/,
    );
    const list = await commandReply(h, 'prod rules');
    const review = await promoteFromList(h, list, `${ACTIONS.promoteRule}:staging:profanity`);
    expect(review.callback_id).toBe(CALLBACKS.permissionsConfirm);
    expect(textOf(review)).toContain('Replace the rule `profanity` in *staging*');
    const posted = await requestApproval(h, review);
    expect(ruleWrites(staging)).toEqual([]);

    const approve = actionButtons({ blocks: posted.blocks }).find(
      (b) => b.action_id === ACTIONS.approveChange,
    );
    if (!approve?.value) throw new Error('no Approve');
    const lead = driverAs(h, 'U0LEAD');
    const mark = h.slack.calls.length;
    await lead.interaction(
      lead.blockAction({
        actionId: ACTIONS.approveChange,
        value: approve.value,
        responseUrl: h.slack.responseUrl(),
        message: { ts: posted.ts, blocks: posted.blocks },
      }),
    );
    const update = await h.slack.nextCall('chat.update', mark);
    expect(textOf(update.args)).toContain('Approved by <@U0LEAD> and applied');
    expect(ruleWrites(staging)).toEqual(['PUT /v3/moderation/rules/profanity']);

    const compared = tableRows(await commandReply(h, 'rules compare staging prod'));
    expect(compared.filter((row) => row[0] === 'Profanity (profanity)')).toEqual([]);
    const [record] = (await store.listAudit({ app: 'staging', offset: 0, limit: 1 })).records;
    expect(record).toMatchObject({
      role: 'profanity',
      subject: { kind: 'rule' },
      outcome: 'applied',
    });
    expect(record?.approval?.approvedBy).toBe('U0LEAD');
    const seen = await store.getSeenRevisions('staging');
    expect(seen.get('profanity')?.revisionId).toMatch(/_profanity_3$/);
    // The next day's check does not report the revision the promotion made.
    const checked = h.slack.calls.length;
    await checkingReplica(h, store, day + DAY).features.periodic(h.logger);
    expect(await store.getSeenRevisions('staging')).toEqual(seen);
    expect(h.slack.calls.slice(checked).filter((c) => c.method === 'chat.postMessage')).toEqual([]);
    h.checkAllPayloads();
  });

  it('puts a promoted rule back by one more PUT, from the record of the promotion', async () => {
    store = createMemoryStore();
    const h = (await start({
      apps: ['staging', 'prod'],
      env: { EDITORS: 'U0OPERATOR' },
      store,
    })) as Harness;
    const staging = sandboxOf(h, 'staging');
    const rule = (list: Record<string, unknown>) =>
      tableRows(list).filter((row) => row[0] === 'Profanity (profanity)');
    const before = rule(await commandReply(h, 'rules compare staging prod'));
    expect(before.length).toBeGreaterThan(0);
    const review = await promoteFromList(
      h,
      await commandReply(h, 'prod rules'),
      `${ACTIONS.promoteRule}:staging:profanity`,
    );
    expect(await apply(h, review)).toContain('Applied to rule `profanity` in *staging*');
    expect(rule(await commandReply(h, 'rules compare staging prod'))).toEqual([]);
    const [record] = (await store.listAudit({ app: 'staging', offset: 0, limit: 1 })).records;
    if (!record) throw new Error('no record of the promotion');

    const revert = await revertReview(h, record.ref);
    expect(textOf(revert)).toContain('put the rule `profanity` back as it was before');
    expect(await apply(h, revert)).toContain('Applied to rule `profanity` in *staging*');
    expect(ruleWrites(staging)).toEqual([
      'PUT /v3/moderation/rules/profanity',
      'PUT /v3/moderation/rules/profanity',
    ]);
    expect(rule(await commandReply(h, 'rules compare staging prod'))).toEqual(before);
    h.checkAllPayloads();
  });

  it('tells a revision changed in the dashboard once, in the subscribed channel', async () => {
    const h = await twoApps();
    const subscribed = await commandReply(h, 'prod subscribe rules', h.driver, {
      channel_id: RULES_CHANNEL,
    });
    expect(textOf(subscribed)).toContain(`Subscribed <#${RULES_CHANNEL}>`);
    let now = Date.parse('2026-11-20T08:00:00Z');
    const replica = () => checkingReplica(h, store, now);
    const log = h.logger.child({ component: 'sweep' });
    const posts = () =>
      h.slack.calls.filter(
        (c) => c.method === 'chat.postMessage' && c.args.channel === RULES_CHANNEL,
      );
    const announced = posts().length;
    // The first check records what there is; a second replica the same day does nothing.
    await Promise.all([replica().features.periodic(log), replica().features.periodic(log)]);
    expect(posts()).toHaveLength(announced);

    sandboxOf(h, 'prod').moderation.editRule('spam-links', { enabled: false });
    now += DAY;
    await Promise.all([replica().features.periodic(log), replica().features.periodic(log)]);
    const told = posts().slice(announced);
    expect(told).toHaveLength(1);
    const said = textOf(told[0]?.args);
    expect(said).toContain('1 moderation rule changed outside this app in *prod*');
    expect(said).toMatch(/`spam-links`: revision `[^`]+_spam-links_1` → `[^`]+_spam-links_2`/);
    expect(said).toContain('enabled: enabled → disabled');

    now += DAY;
    await replica().features.periodic(log);
    expect(posts().slice(announced)).toHaveLength(1);
    h.checkAllPayloads();
  });

  it('refuses a rule id that cannot be one, an unknown rule or app, in one sentence', async () => {
    const h = await twoApps();
    const refused = async (text: string) => textOf(await commandReply(h, text));
    expect(await refused(`prod rules promote ${'r'.repeat(101)} staging`)).toContain(
      'A rule id is at most 100 characters.',
    );
    expect(await refused('prod rules promote no links staging')).toContain(
      'A rule id cannot contain spaces',
    );
    expect(await refused('prod rules promote profanity nowhere')).toContain(
      'There is no app `nowhere`',
    );
    expect(await refused('rules compare prod nowhere')).toContain('There is no app `nowhere`');
    const mark = h.slack.calls.length;
    await h.driver.command('prod rules promote no-such-rule staging');
    const modal = await modalShown(h, mark);
    expect(textOf(modal)).toContain('There is no rule `no-such-rule` in *prod*');
    for (const name of ['staging', 'prod']) expect(ruleWrites(sandboxOf(h, name))).toEqual([]);
    expect((await store.listAudit({ offset: 0, limit: 1 })).total).toBe(0);
  });
});
