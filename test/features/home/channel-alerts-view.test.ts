import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { checkView } from '../../../offline/slack-standin/block-kit-limits.ts';
import {
  ALERTS_TITLE,
  channelAlertBlocks,
} from '../../../src/features/home/channel-alerts-view.ts';
import { markupOf } from '../../integration/harness.ts';

// The Home tab's "Alerts in your channels": the lines the alerts feature gives, bounded.

const within = (blocks: KnownBlock[]) => checkView({ type: 'home', blocks } as never);
const lines = (n: number, length = 40) =>
  Array.from({ length: n }, (_, i) => `<#C${i}> · *calls* ${'x'.repeat(length)}`);
const HINT = '`/cometchat subscriptions` in a channel lists its subscriptions, each with Remove.';

describe('channelAlertBlocks', () => {
  it('lists the lines under its title, with the hint', () => {
    const blocks = channelAlertBlocks({ lines: lines(3), partial: false }, 100);
    expect(blocks.map((b) => b.type)).toEqual(['divider', 'header', 'section', 'context']);
    expect(blocks[1]).toMatchObject({ text: { text: ALERTS_TITLE } });
    expect(markupOf(blocks[2])).toEqual([lines(3).join('\n')]);
    expect(markupOf(blocks[3])).toEqual([HINT]);
  });

  it('shows no section when the person’s channels have none, or they are not known yet', () => {
    expect(channelAlertBlocks({ lines: [], partial: false }, 100)).toEqual([]);
    expect(channelAlertBlocks({ lines: [], partial: true }, 100)).toEqual([]);
    expect(channelAlertBlocks(undefined, 100)).toEqual([]);
  });

  it('says in one line that the channels could not be read', () => {
    const blocks = channelAlertBlocks('unread', 100);
    expect(blocks.map((b) => b.type)).toEqual(['divider', 'header', 'section']);
    expect(markupOf(blocks[2])).toEqual([
      ':warning: Your channels could not be read just now, so their alerts are not shown.',
    ]);
    expect(channelAlertBlocks('unread', 2)).toEqual([]);
  });

  it('lists twenty at most and counts the rest', () => {
    const blocks = channelAlertBlocks({ lines: lines(26), partial: false }, 100);
    const text = markupOf(blocks).join('\n');
    expect(text).toContain('<#C19>');
    expect(text).not.toContain('<#C20>');
    expect(markupOf(blocks.at(-1))).toEqual([`…and 6 more subscriptions. ${HINT}`]);
    expect(within(blocks)).toEqual([]);
  });

  it('keeps each section within Slack’s 3,000 characters, and to the room it is given', () => {
    const long = lines(20, 900);
    const roomy = channelAlertBlocks({ lines: long, partial: false }, 100);
    expect(within(roomy)).toEqual([]);
    // Three lines of about 920 characters a section: seven sections for twenty.
    expect(roomy.filter((b) => b.type === 'section')).toHaveLength(7);
    const tight = channelAlertBlocks({ lines: long, partial: false }, 5);
    expect(tight).toHaveLength(5);
    expect(markupOf(tight.at(-1))).toEqual([`…and 14 more subscriptions. ${HINT}`]);
    expect(channelAlertBlocks({ lines: long, partial: false }, 3)).toEqual([]);
  });

  it('says when not every channel of the person was read', () => {
    const blocks = channelAlertBlocks({ lines: lines(1), partial: true }, 100);
    expect(markupOf(blocks.at(-1))[0]).toContain('some are not listed');
  });
});
