import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { type Apps, appNameIfMultiple, type CometChatApp } from '../../apps/apps.ts';
import type { ModerationOperations, ModerationRule } from '../../cometchat/moderation-model.ts';
import type { Store } from '../../store/store.ts';
import type { AppDeps } from '../deps.ts';
import { asJob } from '../job.ts';
import { type ChangedRule, rulesChangedPost } from './rules-view.ts';

// The rules' daily check: once a day, on whichever replica claims the day first, the rules of
// each app a channel listens to are read and each revision compared with the one this app last
// saw. A revision this app
// did not make (a promotion records the revision it made) is told to the channels subscribed
// with `subscribe rules`, with what changed; then every revision read is kept. An app checked
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

/** One app's rules against what was seen; tells the subscribed channels; keeps what it read. */
async function checkApp(deps: RuleCheckDeps, app: CometChatApp): Promise<number> {
  const [rules, seen] = await Promise.all([
    app.cometchat.listRules(),
    deps.store.getSeenRevisions(app.name),
  ]);
  const moved =
    seen.size === 0
      ? []
      : rules.filter((r) => {
          const before = seen.get(r.id);
          return before !== undefined && before.revisionId !== r.revisionId;
        });
  const changed = await Promise.all(
    moved.map((rule) => withBefore(app.cometchat, rule, seen.get(rule.id)?.revisionId ?? '')),
  );
  if (changed.length > 0) await tell(deps, app, changed);
  const at = deps.now();
  for (const rule of rules) {
    if (seen.get(rule.id)?.revisionId === rule.revisionId) continue;
    await deps.store.setSeenRevision({
      app: app.name,
      rule: rule.id,
      revisionId: rule.revisionId,
      seenAt: at,
    });
  }
  deps.log.info(
    { rules: rules.length, changed: changed.length, first: seen.size === 0 },
    'rules checked',
  );
  return changed.length;
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

/** Posts the changed rules in each channel subscribed to them; a channel that fails is logged. */
async function tell(deps: RuleCheckDeps, app: CometChatApp, changed: readonly ChangedRule[]) {
  const subscriptions = await deps.store.listSubscriptions({ app: app.name });
  const post = rulesChangedPost(changed, appNameIfMultiple(deps.apps, app));
  for (const subscription of subscriptions) {
    if (subscription.kind !== 'rules') continue;
    await deps.client.chat
      .postMessage({ channel: subscription.channel, ...post })
      .catch((error: unknown) => {
        deps.log.warn({ err: error, channel: subscription.channel }, 'rules change not posted');
      });
  }
}
