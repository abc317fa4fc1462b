import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { checkMessage } from '../../../offline/slack-standin/block-kit-limits.ts';
import type { Call } from '../../../src/cometchat/model.ts';
import {
  alertPost,
  subscriptionLine,
  subscriptionsMessage,
} from '../../../src/features/alerts/alert-view.ts';
import type { AlertFacts } from '../../../src/features/alerts/webhook-event.ts';
import { ACTIONS } from '../../../src/slack/ids.ts';
import { slackDate } from '../../../src/slack/mrkdwn.ts';
import type { Subscription } from '../../../src/store/store.ts';
import { markupOf } from '../../integration/harness.ts';

// What a channel reads of an alert and of its subscriptions: escaped, linked safely, bounded.

const call = (status: string): Call => ({
  sessionId: 's1',
  status,
  totalParticipants: 0,
  participants: [],
  hasRecording: false,
  recordings: [],
  hasTranscription: false,
  transcriptions: [],
});
const ended: AlertFacts = {
  trigger: 'call_ended',
  sessionId: 'v1.us.app.1700000000aaaa',
  known: {},
};
const card: KnownBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text: 'the card' } }];

/** The `<…>` control sequences of a text: links, mentions, dates. */
const controls = (text: string) => text.match(/<[^<>]*>/g) ?? [];

describe('alertPost', () => {
  it('heads the call’s card with what happened, how it ended and the app', () => {
    const post = alertPost({ facts: ended, call: call('unanswered'), card, appName: 'prod' });
    expect(post.text).toBe(':telephone_receiver: A call ended (unanswered) in *prod*.');
    expect(post.blocks).toEqual([
      { type: 'section', text: { type: 'mrkdwn', text: post.text } },
      ...card,
    ]);
  });

  it('escapes a call status CometChat sent, so it formats nothing and mentions no one', () => {
    const post = alertPost({
      facts: ended,
      call: call('*loud* <!channel> <https://evil.example|click>'),
      card,
      appName: undefined,
    });
    expect(post.text).not.toContain('<!channel>');
    expect(controls(post.text ?? '')).toEqual([]);
    expect(post.text).toContain('&lt;!channel&gt;');
    expect(post.text).not.toMatch(/(^|[^\u200B])\*loud/);
  });

  it('links a recording or a transcript so that a `|` or `>` in it cannot end the link early', () => {
    const facts: AlertFacts = {
      trigger: 'recording_generated',
      sessionId: 's1',
      known: {},
      link: 'https://files.example.com/r.mp4?a=1|<!channel>&b=2>x',
    };
    const post = alertPost({ facts, call: undefined, card, appName: undefined });
    const links = controls(post.text ?? '');
    expect(links).toHaveLength(1);
    const [link] = links;
    expect(link?.split('|')).toHaveLength(2);
    expect(link).toMatch(/^<https:\/\/files\.example\.com\/r\.mp4\?a=1%7C.*\|Open the recording>$/);
    expect(link).not.toContain('!channel>');
    const transcript = alertPost({
      facts: {
        trigger: 'transcription_generated',
        sessionId: 's1',
        known: {},
        link: 'https://t.example/1',
      },
      call: undefined,
      card,
      appName: undefined,
    });
    expect(transcript.text).toContain('<https://t.example/1|Open the transcript>');
  });

  it('leaves out a link that is not https', () => {
    const facts: AlertFacts = {
      trigger: 'recording_generated',
      sessionId: 's1',
      known: {},
      link: 'javascript:alert(1)',
    };
    const post = alertPost({ facts, call: undefined, card, appName: undefined });
    expect(post.text).toBe(':movie_camera: A recording is ready.');
  });

  it('says how to look up a call that could not be read, its id escaped', () => {
    const post = alertPost({ facts: ended, call: undefined, card: undefined, appName: undefined });
    expect(post.text).toBe(':telephone_receiver: A call ended.');
    const [, note] = markupOf(post.blocks);
    expect(note).toBe(
      'Call `v1.us.app.1700000000aaaa`: CometChat could not be read just now; `/cometchat call v1.us.app.1700000000aaaa` looks it up.',
    );
    const hostile = alertPost({
      facts: { trigger: 'call_ended', sessionId: 'x` <!channel> `y', known: {} },
      call: undefined,
      card: undefined,
      appName: undefined,
    });
    const text = markupOf(hostile.blocks).join('\n');
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('x`');
  });
});

const subscription = (changes: Partial<Subscription> = {}): Subscription => ({
  id: 'sub-1',
  app: 'default',
  channel: 'C1',
  kind: 'calls',
  filters: ['alice', 'status:unanswered'],
  createdBy: 'U0OPERATOR',
  createdAt: 1_700_000_000_000,
  ...changes,
});
const made = slackDate(1_700_000_000);

describe('subscriptionLine', () => {
  it('names the kind, the filters in code, the app, who made it and when', () => {
    expect(subscriptionLine(subscription(), undefined)).toBe(
      `*calls* \`alice\` \`status:unanswered\` · by <@U0OPERATOR> ${made}`,
    );
    expect(subscriptionLine(subscription({ kind: 'recordings', filters: [] }), 'prod')).toBe(
      `*recordings* in *prod* · by <@U0OPERATOR> ${made}`,
    );
  });

  it('keeps a filter inert in its code span, and tells a digest’s time', () => {
    const line = subscriptionLine(subscription({ filters: ['a`b<!here>'] }), undefined);
    expect(line).not.toContain('<!here>');
    expect(line).toContain('`a\u02CBb&lt;!here&gt;`');
    const digest = subscription({
      kind: 'digest',
      filters: [],
      at: { time: '09:30', zone: 'Europe/Berlin' },
    });
    expect(subscriptionLine(digest, undefined)).toBe(
      `*a daily digest* at 09:30 (Europe/Berlin) · by <@U0OPERATOR> ${made}`,
    );
  });
});

describe('subscriptionsMessage', () => {
  const listed = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      subscription: subscription({ id: `sub-${i}` }),
      remove: `remove-${i}`,
    }));

  it('says there are none, and how to make one', () => {
    const message = subscriptionsMessage([], 'C1');
    expect(message.text).toBe(
      '<#C1> has no subscriptions. `/cometchat subscribe calls status:unanswered` makes one.',
    );
    expect(message.blocks).toBeUndefined();
    expect(message.response_type).toBe('ephemeral');
  });

  it('lists each with its Remove button', () => {
    const message = subscriptionsMessage(listed(1), 'C1');
    expect(message.text).toBe('1 subscription in <#C1>');
    expect(message.blocks).toHaveLength(2);
    expect(message.blocks?.[1]).toMatchObject({
      type: 'section',
      text: { text: subscriptionLine(subscription({ id: 'sub-0' }), undefined) },
      accessory: { action_id: ACTIONS.removeSubscription, value: 'remove-0', style: 'danger' },
    });
  });

  it('lists 45 at most and counts the rest, within Slack’s limits', () => {
    const message = subscriptionsMessage(listed(50), 'C1');
    expect(message.text).toBe('50 subscriptions in <#C1>');
    // The heading, 45 subscriptions, and the count.
    expect(message.blocks).toHaveLength(47);
    expect(markupOf(message.blocks?.at(-1))).toEqual(['…and 5 more.']);
    expect(checkMessage(message as never)).toEqual([]);
    expect(subscriptionsMessage(listed(45), 'C1').blocks).toHaveLength(46);
  });
});
