import type { Button, KnownBlock } from '@slack/types';
import type { ValueWriter } from '../../apps/apps.ts';
import type { QueuedMessage } from '../../cometchat/moderation-model.ts';
import { counted } from '../../replies/sentences.ts';
import { actions, button, context, header, section } from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { code, escapedUpTo, escapeMrkdwn, joinedUpTo, slackDate } from '../../slack/mrkdwn.ts';
import { DECISION_LABEL, DECISIONS, type Page, queuedAt, reasonsOf } from './queue.ts';

// The queue in Slack, pure: what everyone allowed to view sees (ids, senders, conversations,
// rules, reasons, counts), and for a moderator the text, the remarks and the buttons that
// decide. A message's text is drawn only where `moderator` is true, and those replies are
// ephemeral or in the moderator's own modal: never posted in a channel.

/** Who the view is for: a moderator sees the text and decides; anyone else reads. */
export interface Viewer {
  moderator: boolean;
}

export interface QueueViewOptions extends Viewer {
  write: ValueWriter;
  appName?: string | undefined;
}

/** Characters of a message's text shown in the list (Details shows more). */
const TEXT_IN_LIST = 300;
const TEXT_IN_DETAILS = 2_500;

/** Where it was sent, in words: to a user, or in a group. Pure. */
export function conversationText(item: QueuedMessage): string {
  const { receiverType, receiver } = item.message;
  return receiverType === 'group' ? `in group ${code(receiver)}` : `to user ${code(receiver)}`;
}

/** Why it waits, in one line (no text, no remark: those are the moderators'). Pure. */
export function whyText(item: QueuedMessage): string {
  if (item.queue === 'blocked') {
    const condition = item.conditionMessage ? `: ${escapedUpTo(item.conditionMessage, 200)}` : '';
    const acts = item.actions.length > 0 ? ` · action ${item.actions.map(code).join(', ')}` : '';
    return `Blocked by rule *${escapedUpTo(item.rule.name, 100)}* ${code(item.rule.id)}${condition}${acts}`;
  }
  const reasons = reasonsOf(item).map((r) => escapedUpTo(r, 60));
  const by = counted(Math.max(item.flaggedCount, item.flags.length), 'person', 'people');
  return `Flagged by ${by}${reasons.length > 0 ? `: ${reasons.join(', ')}` : ''}`;
}

/** Lines of a text quoted at most: each adds `> `, which the quote's bound counts. */
const QUOTED_LINES = 50;

/**
 * A message's text as a quote, for a moderator; never for anyone else. At most `max` characters
 * of escaped text, and QUOTED_LINES lines: `max` + 104 characters in all. Pure.
 */
function quotedText(item: QueuedMessage, max: number): string {
  const { text, type } = item.message;
  if (text === undefined || text === '') return `_(${escapeMrkdwn(type)} message, no text)_`;
  const lines = text.split('\n');
  const kept = escapedUpTo(lines.slice(0, QUOTED_LINES).join('\n'), max).split('\n');
  if (lines.length > QUOTED_LINES) kept.push('…');
  return kept.map((line) => `> ${line}`).join('\n');
}

/** Who sent it where and when, and why it waits: ids and names, each bounded. Pure. */
function aboutText(item: QueuedMessage): string {
  const { message } = item;
  const head = `*${item.queue === 'flagged' ? 'Flagged' : 'Blocked'}* ${code(message.id)} · from ${code(message.sender)} ${conversationText(item)} · ${slackDate(queuedAt(item))}`;
  return `${head}\n${whyText(item)}`;
}

/** An item's lines: who sent it where and when, why it waits, and for a moderator its text. */
export function itemText(item: QueuedMessage, viewer: Viewer, max = TEXT_IN_LIST): string {
  const about = aboutText(item);
  return viewer.moderator ? `${about}\n${quotedText(item, max)}` : about;
}

/** An item's buttons: its decisions for a moderator, Details for everyone. */
function itemButtons(item: QueuedMessage, options: QueueViewOptions): Button[] {
  const id = item.message.id;
  const details = {
    ...button('Details', ACTIONS.moderationDetails, options.write({ m: id })),
    action_id: `${ACTIONS.moderationDetails}:${id}`,
  };
  if (!options.moderator) return [details];
  const decisions = DECISIONS[item.queue].map((d) => ({
    ...button(
      DECISION_LABEL[d],
      ACTIONS.moderationDecide,
      options.write({ m: id, q: item.queue, d }),
      d === 'approve' || d === 'deliver' ? 'primary' : 'danger',
    ),
    action_id: `${ACTIONS.moderationDecide}:${d}:${id}`,
  }));
  return [...decisions, details];
}

function navigation(page: Page, write: ValueWriter, moderator: boolean): Button[] {
  const buttons: Button[] = [];
  const to = (p: number, label: string, which: string) => ({
    ...button(label, ACTIONS.moderationPage, write({ page: p })),
    action_id: `${ACTIONS.moderationPage}_${which}`,
  });
  if (page.page > 1) buttons.push(to(page.page - 1, '◀ Previous', 'prev'));
  if (page.page < page.pages) buttons.push(to(page.page + 1, 'Next ▶', 'next'));
  if (moderator && page.items.length > 1) {
    buttons.push(button('Decide several…', ACTIONS.moderationBulk, write({ page: page.page })));
  }
  return buttons;
}

/** The queue, one page: each item with its buttons, then the pages and "Decide several". Pure. */
export function queueMessage(page: Page, options: QueueViewOptions): SlackMessage {
  const title = options.appName ? `Moderation · ${options.appName}` : 'Moderation';
  const counts = countsOf(page);
  if (page.total === 0) {
    return {
      text: `${title}: nothing waits for a decision.`,
      blocks: [header(title), section('Nothing waits: no flagged or blocked message.')],
    };
  }
  const blocks: KnownBlock[] = [header(title), context([counts])];
  for (const item of page.items) {
    blocks.push(section(itemText(item, options)));
    blocks.push(actions(itemButtons(item, options)));
  }
  const nav = navigation(page, options.write, options.moderator);
  if (nav.length > 0) blocks.push(actions(nav));
  if (!options.moderator) {
    blocks.push(context(['Only moderators see the messages’ text and decide on them.']));
  }
  return { text: `${title}: ${counts}`, blocks };
}

/** "3 waiting (2 flagged, 1 blocked) · page 1 of 1". Pure. */
function countsOf(page: Page): string {
  return `${counted(page.total, 'message')} waiting, newest first · page ${page.page} of ${page.pages}`;
}

/** A section's text at most (Slack's limit is 3000), with room to spare. */
const SECTION_TEXT = 2_900;

/**
 * One item in full: every flag (a remark for moderators only) or the rule; the text for
 * moderators, with its decisions. Each section is bounded by what it is made of (whole flags
 * kept, the rest counted), never cut: a cut could leave a code span open.
 */
export function detailsMessage(
  item: QueuedMessage,
  viewer: Viewer & { write?: ValueWriter | undefined },
): SlackMessage {
  const { message } = item;
  const lines = [
    `Conversation ${code(message.conversationId)} · ${escapedUpTo(message.category, 50)}/${escapedUpTo(message.type, 50)} · sent ${slackDate(message.sentAt)}`,
  ];
  if (item.queue === 'flagged') {
    for (const flag of item.flags) {
      const reason = flag.reasonName ?? flag.reasonId;
      const remark = viewer.moderator && flag.remark ? ` — “${escapedUpTo(flag.remark, 200)}”` : '';
      lines.push(
        `• ${code(flag.uid)}${reason ? ` · ${escapedUpTo(reason, 60)}` : ''} · ${slackDate(flag.flaggedAt)}${remark}`,
      );
    }
  } else if (item.rule.revisionId) {
    lines.push(`Rule revision ${code(item.rule.revisionId)}`);
  }
  return {
    text: `Message ${code(message.id)}: ${item.queue}`,
    blocks: [
      section(aboutText(item)),
      ...(viewer.moderator ? [section(quotedText(item, TEXT_IN_DETAILS))] : []),
      section(joinedUpTo(lines, '\n', SECTION_TEXT)),
      ...detailsButtons(item, viewer),
    ],
    replace_original: false,
  };
}

/** Details' own buttons: the item's decisions, for a moderator (its Details button left out). */
function detailsButtons(item: QueuedMessage, viewer: Viewer & { write?: ValueWriter | undefined }) {
  if (!viewer.moderator || !viewer.write) return [];
  const options = { moderator: true, write: viewer.write };
  return [actions(itemButtons(item, options).slice(0, -1))];
}
