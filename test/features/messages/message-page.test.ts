import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/cometchat/account-model.ts';
import { PAGE_SIZE, shownPage } from '../../../src/features/messages/message-page.ts';

/** Messages `from` to `to` (ids and times), oldest first, as CometChat answers. */
function run(from: number, to: number): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let n = from; n <= to; n++) {
    messages.push({
      id: String(n),
      conversationId: 'a_user_b',
      sender: 'a',
      receiverType: 'user',
      receiver: 'b',
      category: 'message',
      type: 'text',
      sentAt: 1000 + n,
      attachments: 0,
    });
  }
  return messages;
}
const ids = (page: { messages: ChatMessage[] }) => page.messages.map((m) => Number(m.id));

describe('a page of messages by the cursor', () => {
  it('shows the newest page first, newest first, with Older when there are more', () => {
    const page = shownPage(run(40, 50), undefined);
    expect(ids(page)).toEqual([50, 49, 48, 47, 46, 45, 44, 43, 42, 41]);
    expect(page.older).toEqual({ a: 'prepend', i: '41', t: 1041 });
    expect(page.newer).toBeUndefined();
    expect(PAGE_SIZE).toBe(10);
  });

  it('offers no Older when CometChat had no more than a page', () => {
    const page = shownPage(run(1, 10), undefined);
    expect(page.older).toBeUndefined();
    expect(ids(page)).toHaveLength(10);
  });

  it('reads older than a message: Newer back to it, Older while there are more', () => {
    const page = shownPage(run(30, 40), { a: 'prepend', i: '41' });
    expect(ids(page)).toEqual([40, 39, 38, 37, 36, 35, 34, 33, 32, 31]);
    expect(page.newer).toEqual({ a: 'append', i: '40', t: 1040 });
    expect(page.older).toEqual({ a: 'prepend', i: '31', t: 1031 });
    const last = shownPage(run(1, 5), { a: 'prepend', i: '6' });
    expect(last.older).toBeUndefined();
    expect(last.newer).toEqual({ a: 'append', i: '5', t: 1005 });
  });

  it('reads newer than a message: the page just after it, Newer while there are more', () => {
    const page = shownPage(run(31, 41), { a: 'append', i: '30' });
    expect(ids(page)).toEqual([40, 39, 38, 37, 36, 35, 34, 33, 32, 31]);
    expect(page.newer).toEqual({ a: 'append', i: '40', t: 1040 });
    expect(page.older).toEqual({ a: 'prepend', i: '31', t: 1031 });
    const top = shownPage(run(41, 50), { a: 'append', i: '40' });
    expect(top.newer).toBeUndefined();
  });

  it('says nothing is there when a page comes back empty', () => {
    const page = shownPage([], { a: 'prepend', i: '1' });
    expect(page).toEqual({ messages: [] });
  });
});
