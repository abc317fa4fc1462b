import type { BlockAction, ButtonAction } from '@slack/bolt';
import { z } from 'zod';
import { appNameIfMultiple, type CometChatApp, valueWriter } from '../../apps/apps.ts';
import { inputRefused } from '../../replies/refusals.ts';
import { inApp } from '../../replies/sentences.ts';
import { currentRequest } from '../../request-context.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { PageSchema } from '../../slack/values.ts';
import { unknownApp } from '../command.ts';
import type { AppDeps, FeatureDeps } from '../deps.ts';
import { type CommandContext, type Feature, subcommand } from '../feature.ts';
import { asJob } from '../job.ts';
import { inPlace, signedButton } from '../signed-button.ts';
import { checkRulesDaily } from './rule-check.ts';
import { createPromoteRuleButton, openRulePromotion } from './rule-promotion.ts';
import { compareRules, rulesCompareMessage, rulesListMessage } from './rules-view.ts';
import { parseRulesWords, RULES_USAGE, type RulesWords } from './rules-words.ts';

// CometChat's moderation rules as code: listed, compared across two apps, promoted from one app
// to another through the review every change has, and checked daily for revisions made outside
// this app (told to the channels subscribed with `subscribe rules`).

const PageValue = z.object({ page: PageSchema });

/** A page of an app's rules: all of them read (25 at most), the page shown. */
async function renderList(
  deps: Pick<FeatureDeps, 'apps'>,
  app: CometChatApp,
  page: number,
): Promise<SlackMessage> {
  const rules = await app.cometchat.listRules();
  const others = deps.apps.all.filter((a) => a.name !== app.name).map((a) => a.name);
  return rulesListMessage(rules, page, {
    appName: appNameIfMultiple(deps.apps, app),
    others,
    write: valueWriter(app),
  });
}

/** `rules compare <app> <other app>`: both apps' rules read together, compared by id. */
async function renderCompare(
  deps: Pick<FeatureDeps, 'apps'>,
  words: Extract<RulesWords, { kind: 'compare' }>,
): Promise<SlackMessage> {
  const [left, right] = [deps.apps.byName(words.app), deps.apps.byName(words.other)];
  if (!left || !right) {
    const problem = unknownApp(
      left ? words.other : words.app,
      deps.apps.all.map((a) => a.name),
    );
    // Like every refusal, under the request's reference, so a report can be found.
    const { log, ref } = currentRequest();
    log.info({ problem }, 'command refused: malformed input');
    return inputRefused(problem, ref);
  }
  const [a, b] = await Promise.all([left.cometchat.listRules(), right.cometchat.listRules()]);
  return rulesCompareMessage({ left: left.name, right: right.name }, compareRules(a, b));
}

async function run(words: RulesWords, { body, respond, app, deps }: CommandContext) {
  if (words.kind === 'list') return respond(await renderList(deps, app, words.page));
  if (words.kind === 'compare') return respond(await renderCompare(deps, words));
  const ask = { from: app, rule: words.rule, to: words.to, userId: body.user_id };
  const refused = await openRulePromotion(deps, { ...ask, triggerId: body.trigger_id });
  if (refused) await respond({ text: refused });
}

function progress(words: RulesWords, { app, deps }: CommandContext): string | undefined {
  if (words.kind === 'promote') return undefined;
  if (words.kind === 'compare') return 'Asking CometChat for both apps’ rules…';
  return `Asking CometChat for the moderation rules${inApp(appNameIfMultiple(deps.apps, app))}…`;
}

export const rules: Feature = {
  subcommands: [
    subcommand({
      names: ['rules'],
      usage: `${RULES_USAGE} - the app's moderation rules (state, actions, conditions, revision), two apps' rules compared, or a rule promoted to another app through its review (editors of that app)`,
      parse: parseRulesWords,
      progress,
      run,
    }),
  ],
  register(bolt, deps: AppDeps) {
    bolt.action<BlockAction<ButtonAction>>(
      new RegExp(`^${ACTIONS.rulesPage}`),
      signedButton(deps, PageValue, (app, value) => renderList(deps, app, value.page), inPlace),
    );
    bolt.action<BlockAction<ButtonAction>>(
      new RegExp(`^${ACTIONS.promoteRule}`),
      createPromoteRuleButton(deps),
    );
  },
  // Once a day across replicas (the day's claim); every replica asks each minute.
  periodic: (deps, log) =>
    asJob(log, { task: 'rules-check' }, (jobLog) => checkRulesDaily(deps, jobLog), deps.now),
};
