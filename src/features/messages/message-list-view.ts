import type { Button, KnownBlock } from '@slack/types';
import type { ValueWriter } from '../../apps/apps.ts';
import type { ChatMessage } from '../../cometchat/account-model.ts';
import { counted, inApp } from '../../replies/sentences.ts';
import { actions, button, context, section } from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { code, escapedUpTo, slackDate } from '../../slack/mrkdwn.ts';
import type { CarriedCursor, ShownPage } from './message-page.ts';
import type { MessageFilter } from './message-words.ts';

// A user's messages in Slack, pure: when, where, what type, deleted or edited, files; the text
// only where `moderator` is true, and every such reply is the person's own (ephemeral, or their
// modal): never posted in a channel. Delete buttons only for editors.

/** Who the reply is for. */
export interface Reader {
  /** Sees each message's text. */
  moderator: boolean;
  /** May delete (the edit rule); deleting permanently also needs `moderator`. */
  editor: boolean;
}

export interface ListOptions extends Reader {
  filter: MessageFilter;
  /** Where the page shown was read from, for "Delete several…" to read it again. */
  at: CarriedCursor | undefined;
  write: ValueWriter;
  appName?: string | undefined;
}

/** Characters of a message's text a moderator sees in the list. */
const TEXT_IN_LIST = 500;

/** What the filter narrows to, in words: "since …, in group `g`, with files". Pure. */
export function filterText(filter: MessageFilter): string {
  const parts = [
    filter.s !== undefined ? `since ${slackDate(filter.s)}` : undefined,
    filter.t !== undefined ? `until ${slackDate(filter.t)}` : undefined,
    filter.g !== undefined ? `in group ${code(filter.g)}` : undefined,
    filter.w !== undefined ? `with ${code(filter.w)}` : undefined,
    filter.a ? 'with files' : undefined,
    filter.d ? 'deleted only' : undefined,
  ];
  return parts.filter((part) => part !== undefined).join(', ');
}

/** Where it was sent: a group, or the user it was sent to. Pure. */
export function whereText(message: Pick<ChatMessage, 'receiverType' | 'receiver'>): string {
  return message.receiverType === 'group'
    ? `in group ${code(message.receiver)}`
    : `to ${code(message.receiver)}`;
}

/** Its type as CometChat names it: `text`, `image`; another category's with it (`custom/poll`). */
export function typeText(message: Pick<ChatMessage, 'category' | 'type'>): string {
  return code(
    message.category === 'message' ? message.type : `${message.category}/${message.type}`,
  );
}

/** One line about a message: ids and times, never its text. Pure. */
export function aboutMessage(message: ChatMessage): string {
  const marks = [
    message.deletedAt !== undefined ? `:wastebasket: deleted ${slackDate(message.deletedAt)}` : '',
    message.editedAt !== undefined ? `edited ${slackDate(message.editedAt)}` : '',
    message.attachments > 0 ? `:paperclip: ${counted(message.attachments, 'file')}` : '',
  ].filter((mark) => mark !== '');
  const head = `${slackDate(message.sentAt)} · ${whereText(message)} · ${typeText(message)}`;
  return [head, ...marks, `id ${code(message.id)}`].join(' · ');
}

/** A message's text for a moderator, quoted on one line; never drawn for anyone else. Pure. */
function textLine(message: ChatMessage): string {
  const { text } = message;
  if (text === undefined || text === '') return '> _(no text)_';
  return `> ${escapedUpTo(text.replace(/\s+/g, ' '), TEXT_IN_LIST)}`;
}

/** A message's section: about it, its text for a moderator, its Delete for an editor. Pure. */
function messageBlock(message: ChatMessage, options: ListOptions): KnownBlock {
  const about = aboutMessage(message);
  const text = options.moderator ? `${about}\n${textLine(message)}` : about;
  // A soft-deleted message can still be deleted permanently, by a moderator.
  const deletable = options.editor && (message.deletedAt === undefined || options.moderator);
  if (!deletable) return section(text);
  const remove = {
    ...button('Delete', ACTIONS.messagesDelete, options.write({ m: message.id }), 'danger'),
    action_id: `${ACTIONS.messagesDelete}:${message.id}`,
  };
  return section(text, remove);
}

function navigation(page: ShownPage, options: ListOptions): Button[] {
  const to = (at: CarriedCursor, label: string, which: string) => ({
    ...button(label, ACTIONS.messagesPage, options.write({ f: options.filter, c: at })),
    action_id: `${ACTIONS.messagesPage}_${which}`,
  });
  const buttons: Button[] = [];
  if (page.newer) buttons.push(to(page.newer, '◀ Newer', 'newer'));
  if (page.older) buttons.push(to(page.older, 'Older ▶', 'older'));
  if (options.editor && page.messages.length > 0) {
    const here = { f: options.filter, ...(options.at ? { c: options.at } : {}) };
    buttons.push(button('Delete several…', ACTIONS.messagesDeleteSeveral, options.write(here)));
  }
  return buttons;
}

/** One page of a user's messages, newest first, with its buttons. Pure. */
export function messageListMessage(page: ShownPage, options: ListOptions): SlackMessage {
  const narrowed = filterText(options.filter);
  const title = `Messages sent by ${code(options.filter.u)}${narrowed ? ` (${narrowed})` : ''}${inApp(options.appName)}`;
  if (page.messages.length === 0) {
    const none = options.at ? `${title}: no more messages this way.` : `${title}: none.`;
    return { text: none, blocks: [section(none)] };
  }
  const blocks: KnownBlock[] = [
    section(`*${title}*, newest first: ${counted(page.messages.length, 'message')} on this page.`),
    ...page.messages.map((message) => messageBlock(message, options)),
  ];
  const nav = navigation(page, options);
  if (nav.length > 0) blocks.push(actions(nav));
  blocks.push(
    context([
      options.moderator
        ? 'You see their text as a moderator: this reply is seen only by you.'
        : 'Only moderators see the messages’ text.',
    ]),
  );
  return { text: `${title}: ${counted(page.messages.length, 'message')}.`, blocks };
}
