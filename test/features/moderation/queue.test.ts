import { describe, expect, it } from 'vitest';
import { Refusal } from '../../../src/features/feature.ts';
import { parseModerationWords } from '../../../src/features/moderation/index.ts';
import {
  decisionChange,
  mergeQueues,
  PAGE_SIZE,
  pageOf,
  reasonsOf,
} from '../../../src/features/moderation/queue.ts';
import { waitingLine } from '../../../src/features/moderation/waiting.ts';
import { blocked, flagged } from './fixtures.ts';

describe('the moderation queue', () => {
  it('merges both queues newest first, by when each came into its queue', () => {
    const queue = mergeQueues(
      [flagged('f1', 100), flagged('f2', 300)],
      [blocked('b1', 200), blocked('b2', 400)],
    );
    expect(queue.map((item) => item.message.id)).toEqual(['b2', 'f2', 'b1', 'f1']);
  });

  it('cuts pages of ten, a page past the end being the last', () => {
    const queue = mergeQueues(
      Array.from({ length: 23 }, (_, i) => flagged(`f${i}`, 1_000 - i)),
      [],
    );
    expect(pageOf(queue, 1)).toMatchObject({ page: 1, pages: 3, total: 23 });
    expect(pageOf(queue, 1).items).toHaveLength(PAGE_SIZE);
    expect(pageOf(queue, 9)).toMatchObject({ page: 3, pages: 3 });
    expect(pageOf(queue, 9).items).toHaveLength(3);
    expect(pageOf([], 1)).toMatchObject({ page: 1, pages: 1, total: 0, items: [] });
  });

  it('names the reasons once each, and makes a change that carries ids and why, never the text', () => {
    const item = flagged('f1', 100, {
      flags: [
        { uid: 'a', reasonName: 'Spam' },
        { uid: 'b', reasonName: 'Spam' },
        { uid: 'c', reasonId: 'other' },
      ],
    });
    expect(reasonsOf(item)).toEqual(['Spam', 'other']);
    const change = decisionChange(item, 'block', 'a'.repeat(24));
    expect(change).toEqual({
      kind: 'moderation',
      id: 'a'.repeat(24),
      role: '',
      messageId: 'f1',
      queue: 'flagged',
      reasons: ['Spam', 'other'],
      changes: [{ key: 'status', before: 'flagged', after: 'disapproved', explicit: false }],
    });
    const deliver = decisionChange(blocked('b1', 100), 'deliver', 'b'.repeat(24));
    expect(deliver).toMatchObject({ queue: 'blocked', rule: { id: 'no-links', name: 'No links' } });
    expect(deliver.changes[0]).toMatchObject({ before: 'blocked', after: 'delivered' });
    expect(JSON.stringify([change, deliver])).not.toMatch(/secret|pills/);
  });
});

describe('the words and the Home line', () => {
  it('reads nothing as the queue, one id as its details, and refuses anything else', () => {
    expect(parseModerationWords([])).toEqual({ kind: 'queue' });
    expect(parseModerationWords(['9001'])).toEqual({ kind: 'details', id: '9001' });
    // A message id is CometChat's: digits (messageIdProblem); no other word is looked up.
    for (const words of [['9001', 'approve'], ['<!channel>'], ['abc_1'], ['1'.repeat(21)]]) {
      expect(parseModerationWords(words)).toEqual(
        new Refusal('`moderation` takes nothing, or one message id (its details).'),
      );
    }
  });

  it("counts what waits for a moderator's Home tab, and says nothing when nothing does", () => {
    expect(waitingLine(3, 'prod')).toEqual([
      ':shield: *3 messages* wait for moderation in *prod*: `/cometchat prod moderation`',
    ]);
    expect(waitingLine(1, undefined)).toEqual([
      ':shield: *1 message* waits for moderation: `/cometchat moderation`',
    ]);
    expect(waitingLine(0, undefined)).toEqual([]);
    expect(waitingLine(undefined, undefined)).toEqual([]);
  });
});
