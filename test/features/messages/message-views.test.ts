import { describe, expect, it } from 'vitest';
import { checkMessage, checkView } from '../../../offline/slack-standin/block-kit-limits.ts';
import { messageDeletionOf } from '../../../src/changes/review.ts';
import type { ChatMessage } from '../../../src/cometchat/account-model.ts';
import {
  carriedMessage,
  choiceProblem,
  chooseView,
  permanentReviewView,
} from '../../../src/features/messages/delete-view.ts';
import { messageListMessage } from '../../../src/features/messages/message-list-view.ts';
import { PAGE_SIZE, shownPage } from '../../../src/features/messages/message-page.ts';

const SECRET = 'the *secret* text & more';
const write = (payload: Record<string, unknown>) => `sig.${JSON.stringify(payload)}`;

function message(n: number, over: Partial<ChatMessage> = {}): ChatMessage {
  return {
    id: String(n),
    conversationId: 'ana_user_bob',
    sender: 'ana',
    receiverType: 'user',
    receiver: 'bob',
    category: 'message',
    type: 'text',
    sentAt: 1_700_000_000 + n,
    text: `${SECRET} ${n} ${'x'.repeat(2000)}`,
    attachments: 0,
    ...over,
  };
}

const messages = Array.from({ length: PAGE_SIZE + 1 }, (_, i) =>
  message(i + 1, i === 3 ? { deletedAt: 1_700_000_100, editedAt: 1_700_000_050 } : {}),
);
const group = message(99, { receiverType: 'group', receiver: 'sales', attachments: 2 });
const page = shownPage([...messages.slice(0, -1), group], { a: 'prepend', i: '500' });
const options = {
  filter: { u: 'ana', g: 'sales' },
  at: { a: 'prepend' as const, i: '500' },
  write,
};

describe('a user’s messages in Slack', () => {
  it('shows a viewer when, where, type and marks, and never the text', () => {
    const reply = messageListMessage(page, { ...options, moderator: false, editor: false });
    const json = JSON.stringify(reply);
    expect(json).not.toContain('secret');
    for (const seen of ['to `bob`', 'in group `sales`', '`text`', 'deleted', 'edited', '2 files']) {
      expect(json).toContain(seen);
    }
    expect(json).toContain('Only moderators see');
    // No Delete for someone who may not edit.
    expect(json).not.toMatch(/messages_delete/);
    expect(json).toContain('messages_page_newer');
    expect(json).toContain('messages_page_older');
    expect(checkMessage(reply)).toEqual([]);
  });

  it('shows a moderator the text, escaped and bounded, within Block Kit’s limits', () => {
    const reply = messageListMessage(page, { ...options, moderator: true, editor: true });
    const json = JSON.stringify(reply);
    expect(json).toContain('> the \u200b*\u200bsecret\u200b*\u200b text &amp; more 1');
    // The message's own text field, shown in notifications, never holds a message's text.
    expect(reply.text).not.toContain('secret');
    expect(checkMessage(reply)).toEqual([]);
  });

  it('gives an editor Delete on each message, and a moderator on a deleted one too', () => {
    const editor = JSON.stringify(
      messageListMessage(page, { ...options, moderator: false, editor: true }),
    );
    expect(editor).toContain('messages_delete:2"');
    expect(editor).not.toContain('messages_delete:4"');
    expect(editor).toContain('messages_delete_several');
    const moderator = JSON.stringify(
      messageListMessage(page, { ...options, moderator: true, editor: true }),
    );
    expect(moderator).toContain('messages_delete:4"');
  });

  it('says when there are no messages', () => {
    const none = messageListMessage(
      { messages: [] },
      { ...options, at: undefined, moderator: true, editor: true },
    );
    expect(none.text).toContain('none');
  });
});

describe('the modals of a deletion', () => {
  const items = messages.slice(0, PAGE_SIZE).map(carriedMessage);

  it('offers "permanently" to a moderator only, soft by default, never a text', () => {
    const editor = chooseView('ana', items, { write, permanent: false });
    expect(JSON.stringify(editor)).not.toContain('"value":"permanent"');
    const moderator = chooseView('ana', items, { write, permanent: true, preselected: '2' });
    const json = JSON.stringify(moderator);
    expect(json).toContain('"value":"permanent"');
    expect(json).toContain('"initial_option":{"text":{"type":"plain_text","text":"Soft');
    expect(json).toContain('"initial_options":[{"text"');
    expect(json).not.toContain('secret');
    expect(checkView(editor)).toEqual([]);
    expect(checkView(moderator)).toEqual([]);
  });

  it('refuses an empty choice, and a soft delete of a message deleted already', () => {
    expect(choiceProblem([], false)).toBe('Choose at least one message.');
    const deleted = items.filter((item) => item.d);
    expect(choiceProblem(deleted, false)).toContain('only deleting it permanently');
    expect(choiceProblem(deleted, true)).toBeUndefined();
  });

  it('reviews a permanent delete before its last confirmation, naming it as permanent', () => {
    const asked = { sender: 'ana', permanent: true, messages: [{ id: '1', deleted: false }] };
    const change = messageDeletionOf('default', asked, 'V1');
    const view = permanentReviewView(
      change,
      { u: 'ana', ms: items.slice(0, 1), p: true },
      { write },
    );
    const json = JSON.stringify(view);
    expect(json).toContain('messages_delete_permanent');
    expect(json).not.toContain('perms_confirm');
    expect(json).toContain('*permanently*');
    expect(checkView(view)).toEqual([]);
  });
});
