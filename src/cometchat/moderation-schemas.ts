import { z } from 'zod';

// CometChat's moderation answers (live-api-notes.md, "Moderation"). The published documents
// disagree between versions, so each schema takes every documented shape: times as numbers or as
// text (`blockedAt` has been shown as a string with a fraction), fields absent or null, the
// PATCH answer in its three forms. moderation.ts resolves them into moderation-model.ts's types.

/**
 * Unix seconds, whole: a number, or its text with or without a fraction (`"1700000000.123"`).
 * Absent and null are `undefined`.
 */
export const ModerationSecondsSchema = z
  .union([
    z.number().finite().nonnegative(),
    z
      .string()
      .regex(/^\d{1,12}(\.\d+)?$/)
      .transform(Number),
  ])
  .transform(Math.floor)
  .nullish()
  .transform((value) => value ?? undefined);

/** Text that may be absent or null: `undefined` then. */
const optionalText = z
  .string()
  .nullish()
  .transform((value) => value ?? undefined);

/** An id, sent as a number by some versions of the service. */
const IdSchema = z.union([z.string().min(1), z.number()]).transform(String);

export const ModeratedMessageSchema = z.looseObject({
  id: IdSchema,
  conversationId: optionalText,
  sender: z.string().min(1),
  receiverType: z.enum(['user', 'group']),
  receiver: z.string().min(1),
  category: z.string().default('message'),
  type: z.string().default('text'),
  data: z
    .looseObject({ text: z.unknown().optional() })
    .nullish()
    .transform((data) => data ?? undefined),
  sentAt: ModerationSecondsSchema,
});
export type ModeratedMessageRecord = z.infer<typeof ModeratedMessageSchema>;

export const FlagSchema = z.looseObject({
  uid: z.string().min(1),
  name: optionalText,
  reasonId: optionalText,
  reasonName: optionalText,
  remark: optionalText,
  flaggedAt: ModerationSecondsSchema,
});

/** A flagged item is the message itself, with who flagged it and how many. */
export const FlaggedItemSchema = ModeratedMessageSchema.extend({
  flaggedBy: z
    .array(FlagSchema)
    .nullish()
    .transform((flags) => flags ?? []),
  flaggedCount: z.number().int().nonnegative().nullish(),
});
export type FlaggedItem = z.infer<typeof FlaggedItemSchema>;

/** `meta.current {limit, count}` is shown in the examples; nothing of it is read. */
export const FlaggedListResponseSchema = z.looseObject({ data: z.array(FlaggedItemSchema) });

export const BlockedItemSchema = z.looseObject({
  ruleId: IdSchema,
  ruleName: z.string().default(''),
  revisionId: optionalText,
  condition: z
    .looseObject({ message: optionalText })
    .nullish()
    .transform((condition) => condition ?? undefined),
  message: ModeratedMessageSchema,
  action: z
    .array(z.string())
    .nullish()
    .transform((actions) => actions ?? []),
  /** When it was blocked: `createdAt` in the blocked list, `blockedAt` in the reviewed one. */
  createdAt: ModerationSecondsSchema,
  blockedAt: ModerationSecondsSchema,
});
export type BlockedItem = z.infer<typeof BlockedItemSchema>;

export const BlockedListResponseSchema = z.looseObject({ data: z.array(BlockedItemSchema) });

/**
 * A decision's answer, documented three ways: `{success: true, message}` (flagged),
 * `{data: {}}` (flagged again) and `{data: {success, message}}` (blocked). A `success: false`
 * in any of them is not of the shape: the service did not say it took the decision.
 */
const Success = z.looseObject({ success: z.literal(true), message: z.string().optional() });
export const DecisionResponseSchema = z.union([
  Success,
  z.looseObject({ data: z.union([Success, z.looseObject({ success: z.never().optional() })]) }),
]);

export const RuleRecordSchema = z.looseObject({
  id: IdSchema,
  name: z.string().default(''),
  description: optionalText,
  enabled: z.boolean(),
  /** Absent in some examples: the rule is then as in force as it is enabled. */
  active: z
    .boolean()
    .nullish()
    .transform((active) => active ?? undefined),
  default: z
    .boolean()
    .nullish()
    .transform((isDefault) => isDefault ?? false),
  action: z
    .array(z.string())
    .nullish()
    .transform((actions) => actions ?? []),
  conditions: z
    .array(z.unknown())
    .nullish()
    .transform((conditions) => conditions ?? []),
  filters: z
    .array(z.unknown())
    .nullish()
    .transform((filters) => filters ?? []),
  revisionId: z.string().min(1),
  createdAt: ModerationSecondsSchema,
  updatedAt: ModerationSecondsSchema,
});
export type RuleRecord = z.infer<typeof RuleRecordSchema>;

export const RuleResponseSchema = z.looseObject({ data: RuleRecordSchema });
export const RuleListResponseSchema = z.looseObject({ data: z.array(RuleRecordSchema) });
