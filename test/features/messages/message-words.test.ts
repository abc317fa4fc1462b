import { describe, expect, it } from 'vitest';
import { Refusal } from '../../../src/features/feature.ts';
import {
  conversationOf,
  filterOf,
  MessageFilterSchema,
  type MessageWords,
  parseMessageWords,
  queryOf,
} from '../../../src/features/messages/message-words.ts';

const parsed = (text: string) => parseMessageWords(text.split(' ').filter((w) => w !== ''));
const problem = (text: string) => {
  const read = parsed(text);
  if (!(read instanceof Refusal)) throw new Error(`read: ${JSON.stringify(read)}`);
  return read.problem;
};

describe('the words of /cometchat messages', () => {
  it('reads a uid as CometChat stores it, and every filter in any order', () => {
    expect(parsed('Ana-1')).toEqual({ uid: 'ana-1' });
    expect(parsed('ana deleted since:2h group:Sales attachments until:2026-11-20')).toEqual({
      uid: 'ana',
      since: { ago: 7200 },
      until: { day: '2026-11-20' },
      group: 'sales',
      attachments: true,
      deleted: true,
    });
    expect(parsed('ana with:BOB')).toEqual({ uid: 'ana', with: 'bob' });
  });

  it('refuses, in one sentence, what cannot be read', () => {
    expect(problem('')).toContain('Name the user');
    expect(problem('since:2h')).toContain('Name the user');
    expect(problem('ana.b')).toContain('letters, digits');
    expect(problem('ana since:yesterday')).toContain('`since:yesterday` is not a time');
    expect(problem('ana until:2026-02-31')).toContain('is not a time');
    expect(problem('ana group:g with:bob')).toContain('give one of them');
    expect(problem('ana with:b@d')).toContain('letters, digits');
    expect(problem('ana since:1h since:2h')).toBe('`since:` is given twice.');
    expect(problem('ana deleted deleted')).toBe('`deleted` is given twice.');
    expect(problem('ana bob')).toContain('Only one user');
    expect(problem('ana colour:red')).toContain('There is no filter `colour`');
    expect(problem('ana since:1h until:2h')).toContain('later than');
  });

  it('fixes times against the clock, a day in the zone, and names the conversation', () => {
    const words: MessageWords = {
      uid: 'ana',
      since: { ago: 3600 },
      until: { day: '2026-11-20' },
      with: 'bob',
    };
    const filter = filterOf(words, 1_800_000_000, 'UTC');
    expect(filter).toEqual({
      u: 'ana',
      s: 1_799_996_400,
      t: Date.UTC(2026, 10, 21) / 1000 - 1,
      w: 'bob',
    });
    expect(MessageFilterSchema.parse(filter)).toEqual(filter);
    // CometChat's id of two users' conversation: the uids sorted, joined by `_user_`.
    expect(conversationOf(filter)).toBe('ana_user_bob');
    expect(conversationOf({ u: 'zed', w: 'bob' })).toBe('bob_user_zed');
    expect(conversationOf({ u: 'ana', g: 'sales' })).toBe('group_sales');
    expect(queryOf({ u: 'ana', a: true, d: true })).toEqual({
      sender: 'ana',
      since: undefined,
      until: undefined,
      conversationId: undefined,
      attachments: true,
      onlyDeleted: true,
    });
  });
});
