import type { Block, KnownBlock } from '@slack/types';
import { z } from 'zod';
import { inApp } from '../../replies/sentences.ts';
import { actions, button, context, section } from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { code, escapeMrkdwn, slackDate, truncate } from '../../slack/mrkdwn.ts';
import type { FailureGroup, MessageFacts, ModerationFacts, RuleFacts } from './moderation-event.ts';

// What a channel sees of a moderation alert. Ids, senders, conversations, rules and counts only:
// the facts carry no text, so no post can show it. _Review_ is the moderation feature's: the
// queue's Details of that message, in a reply only the moderator sees. Pure.

/** The block that holds an alert's buttons: Claim takes its own button out of it. */
export const ALERT_ACTIONS_BLOCK = 'moderation_alert_actions';
/** The line that names who claimed an alert; its presence says the post is claimed. */
export const CLAIMED_BLOCK = 'moderation_alert_claimed';

const HEADLINE: Record<ModerationFacts['trigger'], string> = {
  moderation_engine_blocked: ':no_entry: A rule blocked a message',
  moderation_manual_approved: ':white_check_mark: A moderator approved a blocked message',
  moderation_engine_failed: ':warning: Moderation could not check a message',
};

const id = (text: string) => code(truncate(text, 200));

/** Who sent it and where: to a user, or in a group (and the conversation's id to copy). */
export function whereLine(message: MessageFacts): string {
  const from = message.sender ? `From ${id(message.sender)}` : 'From an unnamed sender';
  const to = message.receiver
    ? message.receiverType === 'group'
      ? ` in the group ${id(message.receiver)}`
      : ` to ${id(message.receiver)}`
    : '';
  const conversation = message.conversationId
    ? ` · conversation ${id(message.conversationId)}`
    : '';
  return `${from}${to}${conversation}`;
}

function messageLine(message: MessageFacts): string {
  const what = [
    message.id ? `Message ${id(message.id)}` : undefined,
    message.type ? escapeMrkdwn(truncate(message.type, 40)) : undefined,
    message.sentAt ? `sent ${slackDate(message.sentAt)}` : undefined,
  ];
  return what.filter((part) => part !== undefined).join(' · ');
}

function ruleName(rule: Pick<RuleFacts, 'id' | 'name'>): string {
  return rule.name ? `*${escapeMrkdwn(truncate(rule.name, 100))}* (${id(rule.id)})` : id(rule.id);
}

function ruleLine(rule: RuleFacts): string {
  const doing =
    rule.actions.length > 0
      ? `: ${rule.actions.map((action) => code(truncate(action, 40))).join(', ')}`
      : '';
  return `Rule ${ruleName(rule)}${doing}`;
}

/** What each failure category means, in a sentence's words. */
const CATEGORY: Record<string, string> = {
  http_4xx: 'refused the request',
  http_5xx: 'failed (a server error)',
  timeout: 'did not answer in time',
  connection_error: 'could not be reached',
  invalid_response: 'answered what could not be read',
  not_configured: 'is not configured',
};

/** What a failing engine's setting did to the messages it was to check, meanwhile. */
export function meanwhile(setting: string | undefined): string {
  if (setting === 'approve-message') {
    return 'messages this rule checks go through *unchecked* while the engine fails';
  }
  if (setting === 'drop-message') {
    return 'messages this rule checks are *dropped* (never delivered) while the engine fails';
  }
  const named = setting ? ` (${code(truncate(setting, 40))})` : '';
  return `the engine's setting${named} does not say what happens to messages meanwhile`;
}

/** One group of alike failures: engine, rule, category, how many, and what became of messages. */
export function failureLine(group: FailureGroup): string {
  const engine =
    group.engine === 'custom_api' ? 'The custom API' : escapeMrkdwn(truncate(group.engine, 40));
  const what = CATEGORY[group.category] ?? `failed (${code(truncate(group.category, 40))})`;
  const detail = [
    group.httpStatus === undefined ? undefined : `HTTP ${group.httpStatus}`,
    group.timeoutMs === undefined ? undefined : `after ${group.timeoutMs} ms`,
  ].filter((part) => part !== undefined);
  const times = group.count === 1 ? '' : ` ×${group.count}`;
  const rule = group.rule ? ` for the rule ${ruleName(group.rule)}` : '';
  const details = detail.length > 0 ? ` (${detail.join(', ')})` : '';
  return `• *${engine}*${rule} ${what}${details}${times}: ${meanwhile(group.setting)}.`;
}

function failedLines(facts: Extract<ModerationFacts, { trigger: 'moderation_engine_failed' }>) {
  const outcome = facts.outcome
    ? `This message: ${code(truncate(facts.outcome, 50))}.`
    : 'What became of this message is not said.';
  return [...facts.groups.slice(0, 20).map(failureLine), outcome];
}

/** The rules that decided, or, where the webhook names none, where to find it. */
function ruleLines(rules: readonly RuleFacts[]): string[] {
  if (rules.length === 0) return ['The webhook names no rule; `/cometchat moderation` shows it.'];
  return rules.slice(0, 10).map(ruleLine);
}

/** The signed values of an alert's buttons: Claim's, and for a blocked message Review's. */
export interface AlertButtons {
  claim: string;
  review?: string | undefined;
}

/** The post of one moderation alert, with _Review_ (a blocked message) and _Claim_. */
export function moderationPost(
  facts: ModerationFacts,
  appName: string | undefined,
  buttons: AlertButtons,
): SlackMessage {
  const text = `${HEADLINE[facts.trigger]}${inApp(appName)}.`;
  const lines =
    facts.trigger === 'moderation_engine_failed' ? failedLines(facts) : ruleLines(facts.rules);
  const blocks: KnownBlock[] = [
    section(text),
    section([whereLine(facts.message), ...lines].join('\n')),
  ];
  const shown = messageLine(facts.message);
  if (shown) blocks.push(context([shown]));
  const elements = [
    ...(buttons.review ? [button('Review', ACTIONS.reviewModerationItem, buttons.review)] : []),
    button('Claim', ACTIONS.claimModerationAlert, buttons.claim, 'primary'),
  ];
  blocks.push(actions(elements, ALERT_ACTIONS_BLOCK));
  return { text, blocks };
}

/**
 * A posted message's blocks as Slack sends them back with a click: their type and id are read,
 * the rest kept as it is (a block with an id, or one without, as Block Kit's `Block` has it).
 */
export const PostedBlocksSchema = z.array(
  z.union([
    z.looseObject({ type: z.string(), block_id: z.string() }),
    z.looseObject({ type: z.string() }),
  ]),
);
export type PostedBlock = z.infer<typeof PostedBlocksSchema>[number];

/** Whether a posted alert's blocks name who claimed it. Pure. */
export function isClaimed(blocks: readonly PostedBlock[]): boolean {
  return blocks.some((block) => 'block_id' in block && block.block_id === CLAIMED_BLOCK);
}

/**
 * A posted alert's blocks once `userId` claimed it at `at` (Unix seconds): its Claim button
 * gone (Review stays), and a line naming who. Pure.
 */
export function claimedBlocks(
  blocks: readonly PostedBlock[],
  userId: string,
  at: number,
): (Block | KnownBlock)[] {
  const kept: (Block | KnownBlock)[] = blocks.flatMap((block): (Block | KnownBlock)[] => {
    if (!('block_id' in block) || block.block_id !== ALERT_ACTIONS_BLOCK) return [block];
    const elements = Array.isArray(block.elements) ? block.elements : [];
    const left = elements.filter(
      (element: unknown) =>
        typeof element !== 'object' ||
        element === null ||
        !('action_id' in element) ||
        element.action_id !== ACTIONS.claimModerationAlert,
    );
    const withoutClaim: PostedBlock = { ...block, elements: left };
    return left.length > 0 ? [withoutClaim] : [];
  });
  const line = context([`:raising_hand: Claimed by <@${userId}> ${slackDate(at)}`]);
  return [...kept, { ...line, block_id: CLAIMED_BLOCK }];
}

/**
 * The message that counts a channel's moderation alerts past the few it gets one by one in a
 * minute, as it says at `count`. Pure.
 */
export function moderationCountText(count: number, appName: string | undefined): string {
  return `:bell: ${count} more moderation alert${count === 1 ? '' : 's'} from CometChat${inApp(appName)} in the last minute, counted here rather than posted one by one, so they carry no _Claim_ or _Review_. \`/cometchat moderation\` lists the messages waiting, each with its decisions.`;
}
