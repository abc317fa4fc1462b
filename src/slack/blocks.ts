import type {
  ActionsBlock,
  Button,
  ContextBlock,
  HeaderBlock,
  KnownBlock,
  MrkdwnElement,
  PlainTextElement,
  SectionBlock,
  View,
} from '@slack/types';
import { withRef } from '../voice/sentences.ts';
import type { SlackMessage } from './deliver.ts';
import { truncate } from './mrkdwn.ts';

// Small, pure Block Kit constructors shared by every feature. Text handed to them is already
// escaped mrkdwn (see mrkdwn.ts); they only enforce Slack's length limits.

export const TEXT_LIMIT = 3000;
export const FIELD_LIMIT = 2000;

export function plain(text: string, max = 75): PlainTextElement {
  return { type: 'plain_text', text: truncate(text, max), emoji: true };
}

export function md(text: string, max = TEXT_LIMIT): MrkdwnElement {
  return { type: 'mrkdwn', text: truncate(text, max) };
}

export function header(text: string): HeaderBlock {
  return { type: 'header', text: plain(text, 150) };
}

export function section(text: string, accessory?: Button): SectionBlock {
  return { type: 'section', text: md(text), ...(accessory ? { accessory } : {}) };
}

export function fields(items: readonly string[]): SectionBlock {
  return { type: 'section', fields: items.slice(0, 10).map((item) => md(item, FIELD_LIMIT)) };
}

export function context(items: readonly string[]): ContextBlock {
  return { type: 'context', elements: items.slice(0, 10).map((item) => md(item)) };
}

export function divider(): KnownBlock {
  return { type: 'divider' };
}

export function button(
  text: string,
  actionId: string,
  value: string,
  style?: 'primary' | 'danger',
): Button {
  return {
    type: 'button',
    text: plain(text),
    action_id: actionId,
    value,
    ...(style ? { style } : {}),
  };
}

export function actions(elements: readonly Button[], blockId?: string): ActionsBlock {
  return { type: 'actions', elements: [...elements], ...(blockId ? { block_id: blockId } : {}) };
}

/** A failure as one sentence plus the reference that finds its log line. */
export function failureMessage(sentence: string, ref: string): SlackMessage {
  return {
    text: withRef(sentence, ref),
    blocks: [section(`:warning: ${sentence}`), context([`Reference: \`${ref}\``])],
  };
}

/** A plain notice, for refusals and input mistakes. */
export function noticeMessage(sentence: string): SlackMessage {
  return { text: sentence, blocks: [section(sentence)] };
}

/**
 * A modal that says one thing and can only be closed: a refusal, a failure, an outcome. Text is
 * escaped mrkdwn; blocks are used as given.
 */
export function messageModal(
  title: string,
  content: string | KnownBlock[],
  options: { callbackId?: string; clearOnClose?: boolean } = {},
): View {
  return {
    type: 'modal',
    ...(options.callbackId ? { callback_id: options.callbackId } : {}),
    title: plain(title, 24),
    close: plain('Close', 24),
    ...(options.clearOnClose !== undefined ? { clear_on_close: options.clearOnClose } : {}),
    blocks: typeof content === 'string' ? [section(content)] : content,
  };
}

/** The message without its rows of buttons (page buttons, share), keeping a section's own. */
export function withoutActions<M extends { blocks?: { type: string }[] }>(message: M): M {
  return message.blocks
    ? { ...message, blocks: message.blocks.filter((b) => b.type !== 'actions') }
    : message;
}

/**
 * The copy that "Share in channel" posts: no buttons at all (not even a section's own, like
 * Edit or Details), since they would act for whoever clicks them, not the sharer.
 */
export function sharedCopy(message: SlackMessage): SlackMessage {
  const { blocks } = withoutActions(message);
  return {
    ...message,
    ...(blocks
      ? {
          blocks: blocks.map((block) => {
            if (block.type !== 'section' || block.accessory?.type !== 'button') return block;
            const { accessory: _button, ...rest } = block;
            return rest;
          }),
        }
      : {}),
    response_type: 'in_channel',
    replace_original: false,
  };
}
