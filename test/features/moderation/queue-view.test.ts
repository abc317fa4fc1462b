import { describe, expect, it } from 'vitest';
import { checkMessage } from '../../../offline/slack-standin/block-kit-limits.ts';
import { mergeQueues, pageOf } from '../../../src/features/moderation/queue.ts';
import { detailsMessage, queueMessage } from '../../../src/features/moderation/queue-view.ts';
import { BLOCKED_TEXT, blocked, flagged, SECRET_TEXT } from './fixtures.ts';

const write = (payload: Record<string, unknown>) => `sig.${JSON.stringify(payload)}`;
const page = pageOf(mergeQueues([flagged('f1', 100), flagged('f2', 300)], [blocked('b1', 200)]), 1);

describe('the queue in Slack', () => {
  it('shows a viewer ids, senders, conversations, rules, reasons and counts, and no text', () => {
    const message = queueMessage(page, { moderator: false, write });
    const json = JSON.stringify(message);
    expect(json).not.toContain(SECRET_TEXT);
    expect(json).not.toContain(BLOCKED_TEXT);
    expect(json).not.toContain('remark quoting');
    for (const seen of [
      '`f1`',
      '`alice`',
      'to user `bob`',
      'in group `sales`',
      'No links',
      '`no-links`',
      'Spam, Abuse',
      'Flagged by 3 people',
      'Contains a link',
      '3 messages waiting',
    ]) {
      expect(json).toContain(seen);
    }
    // Details only: the decisions are the moderators'.
    expect(json).not.toMatch(/moderation_decide|moderation_bulk/);
    expect(json).toContain('moderation_details:f1');
  });

  it('shows a moderator the text and the decisions of each queue, and "Decide several"', () => {
    const message = queueMessage(page, { moderator: true, write });
    const json = JSON.stringify(message);
    expect(json).toContain(`> ${SECRET_TEXT} f1`);
    expect(json).toContain(`> ${BLOCKED_TEXT} b1`);
    for (const id of [
      'moderation_decide:approve:f2',
      'moderation_decide:block:f2',
      'moderation_decide:deliver:b1',
      'moderation_decide:keep-blocked:b1',
      'moderation_bulk',
    ]) {
      expect(json).toContain(id);
    }
    // The notification text never carries a message's text.
    expect(message.text).not.toContain(SECRET_TEXT);
    expect(checkMessage(message)).toEqual([]);
  });

  it('escapes what senders wrote, and says when nothing waits', () => {
    const tricky = flagged('f9', 100);
    tricky.message.text = '<!channel> *bold* <https://evil|click>';
    const json = JSON.stringify(queueMessage(pageOf([tricky], 1), { moderator: true, write }));
    expect(json).not.toContain('<!channel>');
    expect(json).not.toContain('<https://evil|click>');
    expect(queueMessage(pageOf([], 1), { moderator: true, write }).text).toContain('nothing waits');
  });

  it('gives the remarks and the text in Details to a moderator only', () => {
    const item = flagged('f1', 100);
    expect(JSON.stringify(detailsMessage(item, { moderator: true }))).toContain(
      'remark quoting secret',
    );
    const forViewer = JSON.stringify(detailsMessage(item, { moderator: false }));
    expect(forViewer).not.toContain('remark quoting');
    expect(forViewer).not.toContain(SECRET_TEXT);
    expect(forViewer).toContain('`bob`');
    expect(JSON.stringify(detailsMessage(blocked('b1', 1), { moderator: false }))).toContain(
      'app_no-links_2',
    );
  });
  it('bounds each part of Details, never cutting through a code span or an escape', () => {
    const flags = Array.from({ length: 30 }, (_, i) => ({
      uid: `flagger_${String(i).padStart(2, '0')}_${'u'.repeat(70)}`,
      reasonName: 'Spam & *abuse*',
      remark: `A & B <b> ${'`x` '.repeat(60)}`,
      flaggedAt: 100 + i,
    }));
    const item = flagged('9001', 100, { flags, flaggedCount: 30 });
    item.message.text = `${'line & `code` *b*\n'.repeat(80)}end`;
    const message = detailsMessage(item, { moderator: true });
    expect(checkMessage(message)).toEqual([]);
    expect(message.text).toBe('Message `9001`: flagged');
    const texts = (message.blocks ?? []).map((block) =>
      block.type === 'section' && block.text ? block.text.text : '',
    );
    for (const text of texts) {
      expect(text.length).toBeLessThanOrEqual(3_000);
      // Outside the text's quote, every code span is closed: each line has its backticks paired
      // (an escaped one, between U+200B, is text, not a span's).
      for (const line of text.split('\n').filter((l: string) => !l.startsWith('> '))) {
        expect(line.replaceAll('\u200B`\u200B', '').split('`').length % 2).toBe(1);
      }
    }
    const flagsShown = texts.join('\n').match(/^• /gm) ?? [];
    expect(flagsShown.length).toBeGreaterThan(3);
    expect(texts.join('\n')).toContain(`…and ${30 - flagsShown.length} more`);
    // The quote: its lines bounded, the rest said.
    expect(texts.join('\n')).toMatch(/^> …$/m);
  });
});
