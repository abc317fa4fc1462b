import type { View } from '@slack/types';
import { z } from 'zod';
import { editRefusal } from '../../access/edit-refusal.ts';
import { type CometChatApp, openSigned, valueWriter } from '../../apps/apps.ts';
import {
  changeId,
  changeRecord,
  idPayload,
  METADATA_LIMIT,
  messageView,
  RULE_FIELDS,
  type RuleChange,
  RuleIdSchema,
  ruleChangeLines,
  ruleDifferences,
  ruleIfAny,
  ruleUpdateOf,
  ruleValues,
  subjectReviewView,
} from '../../changes/index.ts';
import type { ModerationRule } from '../../cometchat/moderation-model.ts';
import { inApp } from '../../replies/sentences.ts';
import { currentRequest } from '../../request-context.ts';
import { messageModal } from '../../slack/blocks.ts';
import type { ButtonArgs } from '../../slack/listener-args.ts';
import { code } from '../../slack/mrkdwn.ts';
import { unknownApp } from '../command.ts';
import type { AppDeps } from '../deps.ts';
import { loadIntoModal } from '../load-into-modal.ts';

// _Promote_: one app's rule, reviewed for another app as that app's change of the rule (kind
// `rule`): every field from what that app has to what the first has, sent by one PUT once
// approved. The "before" is that app's rule as read here, so the change can be put back. Nothing
// is sent from here; the review goes the road every change goes.

export const PROMOTE_RULE_TITLE = 'Promote a rule';

/** A _Promote to_ button's value: the rule, and where to, signed by the app the rule is in. */
const PromoteRuleValue = z.object({ promoteRule: RuleIdSchema, to: z.string().max(32) });

/** What a promotion is asked for: from which app, which rule, to which app, by whom. */
export interface PromoteAsk {
  from: CometChatApp;
  rule: string;
  to: string;
  userId: string;
  triggerId: string;
}

/**
 * The promotion's review, in a modal opened at once on the trigger: refused in one sentence
 * when the app is unknown or the person is not an editor of it.
 */
export async function openRulePromotion(
  deps: AppDeps,
  ask: PromoteAsk,
): Promise<string | undefined> {
  const to = deps.apps.byName(ask.to);
  if (!to || to.name === ask.from.name) {
    return to
      ? 'A rule promoted to its own app changes nothing: name another app.'
      : unknownApp(
          ask.to,
          deps.apps.all.map((a) => a.name),
        );
  }
  const { log } = currentRequest();
  const refusal = await editRefusal(to.access, ask.userId, log, 'open');
  if (refusal) return refusal;
  await loadIntoModal(deps, { triggerId: ask.triggerId, title: PROMOTE_RULE_TITLE }, async () =>
    promotionReview(ask.from, to, ask.rule),
  );
  return undefined;
}

/** _Promote to <app>_ on the list: the same as `rules promote`, from a signed value. */
export function createPromoteRuleButton(deps: AppDeps) {
  return async ({ ack, body, action }: ButtonArgs) => {
    await ack();
    const { app, value } = openSigned(deps.apps, PromoteRuleValue, action.value);
    const ask = { from: app, rule: value.promoteRule, to: value.to, userId: body.user.id };
    const refused = await openRulePromotion(deps, { ...ask, triggerId: body.trigger_id });
    if (refused) {
      // A modal says it: the button's message may be ephemeral, and the click has a trigger.
      await deps.views.open({
        trigger_id: body.trigger_id,
        view: messageModal(PROMOTE_RULE_TITLE, refused),
      });
    }
  };
}

/** Both apps' rule, read together; the review, or why there is none. */
async function promotionReview(from: CometChatApp, to: CometChatApp, id: string): Promise<View> {
  const [source, target] = await Promise.all([
    ruleIfAny(from.cometchat, id),
    ruleIfAny(to.cometchat, id),
  ]);
  const names = { from: from.name, to: to.name };
  currentRequest().log.info(
    { from: from.name, to: to.name, rule: id },
    'rule promotion: review shown',
  );
  return rulePromotionView({ id, source, target, names, to, write: valueWriter(to) });
}

/** What a rule's promotion shows: the other app's review, or why there is none. Pure. */
export function rulePromotionView(input: {
  id: string;
  source: ModerationRule | undefined;
  target: ModerationRule | undefined;
  names: { from: string; to: string };
  to: Pick<CometChatApp, 'name' | 'approval'>;
  write: (value: Record<string, unknown>) => string;
}): View {
  const { id, source, target, names } = input;
  const rule = code(id);
  if (!source) {
    return messageView(
      PROMOTE_RULE_TITLE,
      `There is no rule ${rule}${inApp(names.from)}; \`/cometchat rules\` lists them. Nothing was sent.`,
    );
  }
  if (!target) {
    return messageView(
      PROMOTE_RULE_TITLE,
      `There is no rule ${rule}${inApp(names.to)}, and CometChat's update of a rule creates none: create it there first. Nothing was sent.`,
    );
  }
  if (ruleDifferences(ruleUpdateOf(source), ruleUpdateOf(target)).length === 0) {
    return messageView(
      PROMOTE_RULE_TITLE,
      `The rule ${rule}${inApp(names.to)} is the same as${inApp(names.from)} already. Nothing was sent.`,
    );
  }
  const change = promotedRule(source, target, input.to.name);
  const metadata = input.write(changeRecord(change));
  if (metadata.length > METADATA_LIMIT) {
    return messageView(
      PROMOTE_RULE_TITLE,
      `The rule ${rule} is too large to carry through Slack in one review. Nothing was sent.`,
    );
  }
  return subjectReviewView({
    title: PROMOTE_RULE_TITLE,
    question: `Replace the rule ${rule}${inApp(names.to)} with the one${inApp(names.from)} (revision ${code(source.revisionId)})? Its name, description, state, actions, conditions and filters are sent as one update.`,
    details: ruleChangeLines(change.changes),
    note: `“Before” is the rule${inApp(names.to)} now (revision ${code(target.revisionId)}); it is read again when the change is sent, and kept so that it can be put back.`,
    privateMetadata: metadata,
    approvalChannel: input.to.approval?.channel,
  });
}

/**
 * The change that makes `target` (in app `to`) the same as `source`: every field, from before to
 * after. The same revision promoted again is the same change (its id), applied once. Pure.
 */
export function promotedRule(
  source: ModerationRule,
  target: ModerationRule,
  to: string,
): RuleChange {
  const before = ruleValues(ruleUpdateOf(target));
  const after = ruleValues(ruleUpdateOf(source));
  const changes = RULE_FIELDS.map((key) => ({
    key,
    before: before[key],
    after: after[key],
    explicit: JSON.stringify(before[key]) === JSON.stringify(after[key]),
  }));
  return {
    kind: 'rule',
    role: target.id,
    id: changeId(
      `promoted ${source.revisionId} over ${target.revisionId}`,
      to,
      `rule:${target.id}`,
      idPayload(changes),
    ),
    changes,
  };
}
