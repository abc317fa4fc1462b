import { describe, expect, it } from 'vitest';
import { assertWithinLimits } from '../../../offline/slack-standin/block-kit-limits.ts';
import { moderationFacts } from '../../../src/features/alerts/moderation-event.ts';
import {
  ALERT_ACTIONS_BLOCK,
  claimedBlocks,
  isClaimed,
  meanwhile,
  moderationCountText,
  moderationPost,
  PostedBlocksSchema,
} from '../../../src/features/alerts/moderation-view.ts';
import { parseSubscribeWords } from '../../../src/features/alerts/subscription-rules.ts';
import { Refusal } from '../../../src/features/feature.ts';
import { ACTIONS } from '../../../src/slack/ids.ts';
import {
  MODERATION_FIXTURE_TEXT,
  type ModerationFixtureTrigger,
  moderationData,
} from '../../fixtures/moderation-webhooks/index.ts';

function postOf(trigger: ModerationFixtureTrigger, review?: string) {
  const facts = moderationFacts(trigger, moderationData(trigger));
  if (!facts) throw new Error('not read');
  return moderationPost(facts, undefined, { claim: 'signed-claim', review });
}

const actionIds = (post: { blocks?: unknown[] }) =>
  JSON.stringify(post.blocks).match(/"action_id":"[^"]+"/g) ?? [];

describe('a moderation alert', () => {
  it('names the sender, the conversation and the rule of a blocked message, never its text', () => {
    const post = postOf('moderation_engine_blocked', 'signed-review');
    const shown = JSON.stringify(post);
    expect(post.text).toBe(':no_entry: A rule blocked a message.');
    expect(shown).toContain('`cometchat-uid-1`');
    expect(shown).toContain('`cometchat-uid-3`');
    expect(shown).toContain('Profanity filter');
    expect(shown).not.toContain(MODERATION_FIXTURE_TEXT);
    expect(actionIds(post)).toEqual([
      `"action_id":"${ACTIONS.reviewModerationItem}"`,
      `"action_id":"${ACTIONS.claimModerationAlert}"`,
    ]);
    assertWithinLimits('message', post);
  });

  it('says a moderator approved a message in a group, with Claim only', () => {
    const post = postOf('moderation_manual_approved');
    expect(post.text).toContain('A moderator approved a blocked message');
    expect(JSON.stringify(post)).toContain('in the group `support-room`');
    expect(actionIds(post)).toEqual([`"action_id":"${ACTIONS.claimModerationAlert}"`]);
  });

  it('groups failures and says what happened to messages meanwhile', () => {
    const post = postOf('moderation_engine_failed');
    const shown = JSON.stringify(post.blocks);
    expect(shown).toContain(
      '*openai* for the rule *AI toxicity* (`ai-toxicity`) did not answer in time (after 3000 ms) ×2: messages this rule checks go through *unchecked*',
    );
    expect(shown).toContain(
      '*The custom API* for the rule *Our classifier* (`own-classifier`) failed (a server error) (HTTP 502): messages this rule checks are *dropped*',
    );
    expect(shown).not.toContain(MODERATION_FIXTURE_TEXT);
    assertWithinLimits('message', post);
  });

  it('says where to find the rule when the webhook names none', () => {
    const facts = moderationFacts('moderation_engine_blocked', {
      message: { id: '1', sender: 'a' },
    });
    if (!facts) throw new Error('not read');
    expect(JSON.stringify(moderationPost(facts, undefined, { claim: 'c' }))).toContain(
      'The webhook names no rule',
    );
  });

  it("says so when an engine's setting is not named", () => {
    expect(meanwhile(undefined)).toContain('does not say what happens');
  });

  it('escapes what CometChat names', () => {
    const facts = moderationFacts('moderation_engine_blocked', {
      message: { id: '1', sender: 'a`b', receiver: '<!here>' },
      moderation: [{ rule: { id: 'r', name: '*bold* <!channel>' } }],
    });
    if (!facts) throw new Error('not read');
    const shown = JSON.stringify(moderationPost(facts, undefined, { claim: 'c' }));
    expect(shown).not.toContain('<!here>');
    expect(shown).not.toContain('<!channel>');
  });
});

describe('a claimed alert', () => {
  it('loses its Claim button, keeps Review, and names who claimed it', () => {
    const post = postOf('moderation_engine_blocked', 'signed-review');
    const blocks = PostedBlocksSchema.parse(JSON.parse(JSON.stringify(post.blocks)));
    expect(isClaimed(blocks)).toBe(false);
    const claimed = claimedBlocks(blocks, 'U0MOD', 1_757_953_600);
    expect(actionIds({ blocks: claimed })).toEqual([
      `"action_id":"${ACTIONS.reviewModerationItem}"`,
    ]);
    expect(JSON.stringify(claimed)).toContain('Claimed by <@U0MOD>');
    expect(isClaimed(PostedBlocksSchema.parse(claimed))).toBe(true);
    assertWithinLimits('message', { text: 'x', blocks: claimed });
  });

  it('drops the row of buttons when Claim was its only one', () => {
    const post = postOf('moderation_manual_approved');
    const claimed = claimedBlocks(PostedBlocksSchema.parse(post.blocks), 'U0MOD', 1);
    expect(claimed.some((b) => 'block_id' in b && b.block_id === ALERT_ACTIONS_BLOCK)).toBe(false);
  });
});

describe('subscribe moderation', () => {
  it('takes all three alerts when no word is given, and the words in one order', () => {
    expect(parseSubscribeWords(['moderation'])).toEqual({
      kind: 'moderation',
      filters: ['blocked', 'failed', 'approved'],
    });
    expect(parseSubscribeWords(['moderation', 'Approved', 'blocked', 'blocked'])).toEqual({
      kind: 'moderation',
      filters: ['blocked', 'approved'],
    });
  });

  it('refuses another word in one sentence', () => {
    const refused = parseSubscribeWords(['moderation', 'flagged']);
    expect(refused).toBeInstanceOf(Refusal);
    expect(refused instanceof Refusal && refused.problem).toContain('not `flagged`');
  });

  it('counts a burst of moderation alerts in its own words', () => {
    expect(moderationCountText(27, undefined)).toContain('27 more moderation alerts');
    // The alerts it counts are never posted: no Claim of their own, and the count says so.
    expect(moderationCountText(27, undefined)).toContain('so they carry no _Claim_ or _Review_');
  });
});
