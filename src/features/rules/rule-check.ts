import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { type Apps, appNameIfMultiple, type CometChatApp } from '../../apps/apps.ts';
import type { ModerationOperations, ModerationRule } from '../../cometchat/moderation-model.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import type { SeenRevision, Store } from '../../store/store.ts';
import type { AppDeps } from '../deps.ts';
import { asJob } from '../job.ts';
import { type ChangedRule, type RulesAddedOrDeleted, rulesChangedPost } from './rules-view.ts';

// The rules' daily check: once a day, on whichever replica claims the day first, the rules of
// each app a channel listens to are read and each revision compared with the one this app last
// saw. A revision this app did not make (a promotion records the revision it made), a rule added
// and a rule deleted are told to the channels subscribed with `subscribe rules`, with what
// changed; then every revision read is kept. An app checked
// for the first time is only recorded: there is nothing yet to compare with.

/** While the check runs, its day is claimed: far longer than reading 25 rules an app takes. */
const CHECKING_CLAIM_SECONDS = 10 * 60;
/** Once done, the day's claim outlives the day, so no replica checks it twice. */
const CHECKED_CLAIM_SECONDS = 2 * 24 * 60 * 60;

export interface RuleCheckDeps {
  apps: Pick<Apps, 'all' | 'multiple'>;
  store: Pick<
    Store,
    | 'claim'
    | 'renewClaim'
    | 'release'
    | 'listSubscriptions'
    | 'getSeenRevisions'
    | 'setSeenRevision'
  >;
  client: Pick<WebClient, 'chat'>;
  now: () => number;
  log: Logger;
}

/** The feature's periodic job: its dependencies, from the app's. */
export function checkRulesDaily(deps: AppDeps, log: Logger): Promise<number> {
  return checkRules({
    apps: deps.apps,
    store: deps.store,
    client: deps.client,
    now: deps.now,
    log,
  });
}

/** The UTC day of `ms` (YYYY-MM-DD): what makes the check once a day. */
export function checkDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Checks, once a day each, the rules of every app a channel is subscribed to with `subscribe
 * rules` (an app nobody listens to is not read): answers how many changed rules it told of.
 */
export async function checkRules(deps: RuleCheckDeps): Promise<number> {
  const subscriptions = await deps.store.listSubscriptions({});
  const listened = new Set(subscriptions.filter((s) => s.kind === 'rules').map((s) => s.app));
  let told = 0;
  for (const app of deps.apps.all) {
    if (!listened.has(app.name)) continue;
    // One app's failure does not keep the others from their check.
    told += await asJob(
      deps.log,
      { task: 'rules-check', app: app.name },
      (log) =>
        checkOnce({ ...deps, log }, app).catch((error: unknown) => {
          log.warn({ err: error }, 'rules not checked; tried again next minute');
          return 0;
        }),
      deps.now,
    );
  }
  return told;
}

/** One app's check for the day, if no replica has made it: the day's claim, let go on failure. */
async function checkOnce(deps: RuleCheckDeps, app: CometChatApp): Promise<number> {
  const claim = `rules-check:${app.name}:${checkDay(deps.now())}`;
  if (!(await deps.store.claim(claim, CHECKING_CLAIM_SECONDS))) return 0;
  let told: number;
  try {
    told = await checkApp(deps, app);
  } catch (error) {
    await deps.store.release(claim);
    throw error;
  }
  await deps.store.renewClaim(claim, CHECKED_CLAIM_SECONDS).catch((error: unknown) => {
    deps.log.warn({ err: error }, 'rules check: not kept for the day; it may run again');
  });
  return told;
}

/**
 * What a deleted rule's seen revision becomes once told: a rule seen as gone (the store keeps
 * no way to forget a rule), so that its deletion is told once, and a rule of that id that
 * comes back is told as added.
 */
const GONE = '';

/** One app's rules against what was seen; tells the subscribed channels; keeps what it read. */
async function checkApp(deps: RuleCheckDeps, app: CometChatApp): Promise<number> {
  const [rules, seen] = await Promise.all([
    app.cometchat.listRules(),
    deps.store.getSeenRevisions(app.name),
  ]);
  const { moved, outside } = seen.size === 0 ? FIRST_CHECK : sinceSeen(rules, seen);
  const changed = await Promise.all(
    moved.map((rule) => withBefore(app.cometchat, rule, seen.get(rule.id)?.revisionId ?? '')),
  );
  const told = changed.length + outside.added.length + outside.deleted.length;
  if (told > 0)
    await tell(deps, app, rulesChangedPost(changed, appNameIfMultiple(deps.apps, app), outside));
  const at = deps.now();
  const keep = (rule: string, revisionId: string) =>
    deps.store.setSeenRevision({ app: app.name, rule, revisionId, seenAt: at });
  for (const rule of rules) {
    if (seen.get(rule.id)?.revisionId === rule.revisionId) continue;
    await keep(rule.id, rule.revisionId);
  }
  for (const rule of outside.deleted) await keep(rule.id, GONE);
  deps.log.info({ rules: rules.length, changed: told, first: seen.size === 0 }, 'rules checked');
  return told;
}

const FIRST_CHECK = { moved: [], outside: { added: [], deleted: [] } };

/**
 * The rules whose revision moved since it was seen, and those added or deleted since (a
 * deletion told once: its seen revision is then GONE). Pure.
 */
export function sinceSeen(
  rules: readonly ModerationRule[],
  seen: ReadonlyMap<string, Pick<SeenRevision, 'revisionId'>>,
): { moved: ModerationRule[]; outside: RulesAddedOrDeleted } {
  const listed = new Set(rules.map((r) => r.id));
  const before = (id: string) => seen.get(id)?.revisionId;
  const moved = rules.filter((r) => {
    const revision = before(r.id);
    return revision !== undefined && revision !== GONE && revision !== r.revisionId;
  });
  const added = rules.filter((r) => before(r.id) === undefined || before(r.id) === GONE);
  const deleted = [...seen]
    .filter(([id, s]) => s.revisionId !== GONE && !listed.has(id))
    .map(([id, s]) => ({ id, revisionId: s.revisionId }));
  return { moved, outside: { added, deleted } };
}

/** The rule as it was at the revision seen before, read from its revisions (when still listed). */
async function withBefore(
  cometchat: Pick<ModerationOperations, 'listRuleRevisions'>,
  now: ModerationRule,
  revisionId: string,
): Promise<ChangedRule> {
  const revisions = await cometchat.listRuleRevisions(now.id);
  const rule = revisions.find((r) => r.revisionId === revisionId);
  return { before: { revisionId, rule }, now };
}

/** Posts the check's news in each channel subscribed to the app's rules; a failure is logged. */
async function tell(deps: RuleCheckDeps, app: CometChatApp, post: SlackMessage) {
  const subscriptions = await deps.store.listSubscriptions({ app: app.name });
  for (const subscription of subscriptions) {
    if (subscription.kind !== 'rules') continue;
    await deps.client.chat
      .postMessage({ channel: subscription.channel, ...post })
      .catch((error: unknown) => {
        deps.log.warn({ err: error, channel: subscription.channel }, 'rules change not posted');
      });
  }
}
