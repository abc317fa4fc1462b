import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { checkView } from '../../../offline/slack-standin/block-kit-limits.ts';
import {
  DIFFERENCES_TITLE,
  differenceBlocks,
} from '../../../src/features/home/differences-view.ts';
import type { PairSummary } from '../../../src/features/home/role-differences.ts';
import { markupOf } from '../../integration/harness.ts';

/** A block's mrkdwn, as Slack reads it. */
const textOf = (block: unknown) => markupOf(block).join('\n');
const within = (blocks: KnownBlock[]) => checkView({ type: 'home', blocks } as never);

const compared = (
  left: string,
  right: string,
  differing: { role: string; keys: number }[],
  onlyLeft: string[] = [],
  onlyRight: string[] = [],
): PairSummary => ({ state: 'compared', left, right, differing, onlyLeft, onlyRight });

describe('differenceBlocks', () => {
  it('lists each differing role as code with its count and the command that shows it', () => {
    const blocks = differenceBlocks(
      [
        compared('staging', 'prod', [
          { role: 'admin', keys: 1 },
          { role: 'guest_2', keys: 3 },
        ]),
      ],
      100,
    );
    expect(blocks.map((b) => b.type)).toEqual(['divider', 'header', 'section', 'context']);
    expect(blocks[1]).toMatchObject({ text: { text: DIFFERENCES_TITLE } });
    expect(textOf(blocks[2])).toBe(
      [
        '*staging* and *prod*: *2 roles differ*',
        '• `admin` · 1 key differs · `/cometchat compare admin staging prod`',
        '• `guest_2` · 3 keys differ · `/cometchat compare guest_2 staging prod`',
      ].join('\n'),
    );
    expect(textOf(blocks[3])).toContain("this app's own record");
    expect(within(blocks)).toEqual([]);
  });

  it('says in one line that a pair has no difference, naming roles known in one app only', () => {
    const blocks = differenceBlocks(
      [compared('staging', 'prod', [], ['guest', 'vip', 'banned', 'beta'], ['auditor'])],
      100,
    );
    expect(textOf(blocks[2])).toBe(
      '*staging* and *prod*: no role known in both differs. Known in one app only: *staging* `guest` `vip` `banned` and 1 more · *prod* `auditor`.',
    );
  });

  it('puts pairs with differences first, and the others a line each', () => {
    const blocks = differenceBlocks(
      [
        compared('a', 'b', []),
        { state: 'loading', left: 'a', right: 'c', missing: ['c'] },
        { state: 'unread', left: 'b', right: 'c', missing: ['c'] },
        compared('a', 'd', [{ role: 'admin', keys: 2 }], [], ['x']),
      ],
      100,
    );
    const sections = blocks.filter((b) => b.type === 'section').map(textOf);
    expect(sections).toEqual([
      [
        '*a* and *d*: *1 role differs*',
        '• `admin` · 2 keys differ · `/cometchat compare admin a d`',
        'Known in one app only: *d* `x`.',
      ].join('\n'),
      [
        '*a* and *b*: no role known in both differs.',
        ':hourglass_flowing_sand: *a* and *c*: waiting for the roles of *c*.',
        ':warning: *b* and *c*: not compared, the roles of *c* could not be read.',
      ].join('\n'),
    ]);
  });

  it('lists five roles of a pair and says how many more', () => {
    const differing = Array.from({ length: 8 }, (_, i) => ({ role: `role-${i}`, keys: 1 }));
    const [, , section] = differenceBlocks([compared('a', 'b', differing)], 100);
    const text = textOf(section);
    expect(text).toContain('*8 roles differ*');
    expect(text).toContain('`role-4`');
    expect(text).not.toContain('`role-5`');
    expect(text).toContain('_…and 3 more_');
  });

  it('fits the room it is given, counting the pairs left out, and within Slack limits at worst', () => {
    // Role ids and app names at their longest: 100 and 32 characters.
    const long = (i: number) => `${'r'.repeat(97)}${String(i).padStart(3, '0')}`;
    const app = (i: number) => `${'a'.repeat(30)}${String(i).padStart(2, '0')}`;
    const pairs = Array.from({ length: 20 }, (_, i) =>
      compared(
        app(i),
        app(i + 1),
        Array.from({ length: 9 }, (_, j) => ({ role: long(j), keys: 120 })),
        Array.from({ length: 9 }, (_, j) => long(100 + j)),
        Array.from({ length: 9 }, (_, j) => long(200 + j)),
      ),
    );
    const same = Array.from({ length: 12 }, (_, i) =>
      compared(app(50 + i), app(70 + i), [], [long(1), long(2), long(3), long(4)], [long(5)]),
    );
    const blocks = differenceBlocks([...same, ...pairs], 10);
    expect(blocks).toHaveLength(10);
    expect(within(blocks)).toEqual([]);
    // Seven sections of differing pairs fit; 13 differing and 12 alike are left out.
    expect(textOf(blocks.at(-1))).toContain('25 more pairs of apps not shown.');
    // Every section within Slack's 3,000 characters without being cut.
    for (const block of blocks.filter((b) => b.type === 'section')) {
      expect(textOf(block)).not.toMatch(/…$/);
    }
    const alike = differenceBlocks(same, 100).filter((b) => b.type === 'section');
    expect(alike).toHaveLength(3);
    for (const block of alike) expect(textOf(block).length).toBeLessThan(3000);
    expect(differenceBlocks(pairs, 3)).toEqual([]);
  });

  it('warns when the known maps could not be read', () => {
    const blocks = differenceBlocks('unread', 100);
    expect(textOf(blocks[2])).toBe(
      ':warning: The known permission maps could not be read just now.',
    );
  });
});
