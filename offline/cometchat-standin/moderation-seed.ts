import { z } from 'zod';
import {
  BlockedRecordSchema,
  FlaggedRecordSchema,
  type ModerationState,
  StoredRuleSchema,
} from './state.ts';

// The seeded moderation of an app (`seed/moderation.json`, `seed/second/moderation.json`):
// flagged and blocked messages waiting for a decision, a few already reviewed, and the rules,
// each with its revisions oldest first. README.md, "Moderation", describes the default one.

const ReviewedSeedSchema = z.discriminatedUnion('queue', [
  z.strictObject({
    queue: z.literal('flagged'),
    status: z.string(),
    reviewedAt: z.int(),
    item: FlaggedRecordSchema,
  }),
  z.strictObject({
    queue: z.literal('blocked'),
    status: z.string(),
    reviewedAt: z.int(),
    item: BlockedRecordSchema,
  }),
]);

const ModerationSeedSchema = z.strictObject({
  flagged: z.array(FlaggedRecordSchema),
  blocked: z.array(BlockedRecordSchema),
  reviewed: z.array(ReviewedSeedSchema),
  rules: z.array(z.array(StoredRuleSchema).min(1)),
});

/** The seed's moderation, checked: ids unique, each rule's revisions numbered in order. */
export function loadModeration(data: unknown, where: string): ModerationState {
  const seed = ModerationSeedSchema.parse(structuredClone(data));
  const flagged = new Map(seed.flagged.map((item) => [item.id, item]));
  const blocked = new Map(seed.blocked.map((item) => [item.message.id, item]));
  if (flagged.size !== seed.flagged.length || blocked.size !== seed.blocked.length) {
    throw new Error(`${where}: a moderated message id is listed twice`);
  }
  const rules = new Map<string, z.infer<typeof StoredRuleSchema>[]>();
  for (const revisions of seed.rules) {
    const id = revisions[0]?.id ?? '';
    const numbered = revisions.every((r, i) => r.id === id && r.revision === i + 1);
    if (!numbered || rules.has(id)) {
      throw new Error(`${where}: the revisions of rule "${id}" are not 1, 2, ... of one new rule`);
    }
    rules.set(id, revisions);
  }
  for (const item of [
    ...seed.blocked,
    ...seed.reviewed.flatMap((r) => (r.queue === 'blocked' ? [r.item] : [])),
  ]) {
    if (!rules.has(item.ruleId)) throw new Error(`${where}: no rule "${item.ruleId}"`);
  }
  return { flagged, blocked, reviewed: seed.reviewed, rules, flaggedAnswer: 'success' };
}

/** The default seed's moderated messages and rules by what they are; README.md describes each. */
export const SANDBOX_MODERATION_IDS = Object.freeze({
  flagged: Object.freeze({
    /** A spam link in the group `support-lobby`, three flags with reasons and remarks. */
    spamInGroup: '9001',
    /** An abusive direct message to `cometchat-uid-1`, one flag. */
    abusiveDirect: '9002',
    /** Slack markup in a group (`beta-testers`): two flags shown, `flaggedCount` 4. */
    markupInGroup: '9003',
    /** An image (no text), one flag. */
    image: '9004',
    /** A flag with no name, reason or remark. */
    bareFlag: '9005',
    /** A direct message, one flag. */
    unsettlingDirect: '9006',
    /** A card number in a group, two flags. */
    cardNumber: '9007',
  }),
  blocked: Object.freeze({
    /** `spam-links` (revision 3) in a group, `blockMessage`. */
    spamLink: '9101',
    /** `profanity` (revision 2), a direct message. */
    profanity: '9102',
    /** `pii-guard`, markup in a group, `dropMessage`. */
    emailInGroup: '9103',
    /** `profanity` again. */
    profanityAgain: '9104',
    /** The default rule. */
    defaultRule: '9105',
    /** `pii-guard`, a phone number. */
    phoneNumber: '9106',
  }),
  /** Already reviewed: a flagged one approved, a blocked one rejected. */
  reviewed: Object.freeze({ flaggedApproved: '8901', blockedRejected: '8902' }),
  rules: Object.freeze({
    /** The service's own rule (`default: true`), one revision. */
    defaultKeywords: 'default-keyword-filter',
    /** Two revisions. */
    profanity: 'profanity',
    /** Three revisions; its conditions name a custom API engine. */
    spamLinks: 'spam-links',
    /** One revision, `dropMessage`. */
    piiGuard: 'pii-guard',
  }),
} as const);
