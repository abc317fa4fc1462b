import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { RuleRef } from '../../cometchat/moderation-model.ts';

// CometChat's moderation webhooks (live-api-notes.md, "Webhooks"), read into what an alert shows:
// who sent the message, where, which rule, what the engine did. The message's text is never read
// out of a payload: the facts below are all that is stored, posted or logged of one, so no post,
// log line or metric can carry it. Fields are absent rather than null; what is not needed to say
// what happened is optional, and a value of an unexpected type is dropped rather than refused.

/** The moderation triggers, and the word a subscription names each by (`subscribe moderation failed`). */
export const MODERATION_TRIGGERS = {
  moderation_engine_blocked: 'blocked',
  moderation_engine_failed: 'failed',
  moderation_manual_approved: 'approved',
  /** Every message the engine let through: taken, never posted (it would be every message). */
  moderation_engine_approved: undefined,
} as const;
export type ModerationTrigger = keyof typeof MODERATION_TRIGGERS;

/** The words `subscribe moderation` takes, in the order a subscription keeps them. */
export const MODERATION_WORDS = ['blocked', 'failed', 'approved'] as const;
export type ModerationWord = (typeof MODERATION_WORDS)[number];

export function isModerationTrigger(trigger: string): trigger is ModerationTrigger {
  return Object.hasOwn(MODERATION_TRIGGERS, trigger);
}

const Id = z.union([z.string().min(1).max(100), z.number().int().nonnegative()]).transform(String);
const Uid = z.string().min(1).max(255);
const Name = z.string().max(200);
/** Unix seconds, or a date's text (the reviewed list's `blockedAt` has a fraction): as given. */
const When = z.union([z.number(), z.string().max(40)]);

const RuleSchema = z.looseObject({
  id: z.string().min(1).max(100),
  name: Name.optional().catch(undefined),
  revisionId: z.string().max(300).optional().catch(undefined),
  action: z.array(z.string().max(50)).max(20).optional().catch(undefined),
  blockedAt: When.optional().catch(undefined),
});

/** The message as a moderation webhook carries it; its `data` (with the text) is read for the rule only. */
const MessageSchema = z.looseObject({
  id: Id,
  conversationId: z.string().max(300).optional().catch(undefined),
  sender: Uid,
  receiverType: z.enum(['user', 'group']).optional().catch(undefined),
  receiver: Uid.optional().catch(undefined),
  type: z.string().max(50).optional().catch(undefined),
  sentAt: z.number().optional().catch(undefined),
  editedAt: z.number().optional().catch(undefined),
  data: z
    .looseObject({
      moderation: z
        .looseObject({ rule: RuleSchema.optional().catch(undefined) })
        .optional()
        .catch(undefined),
    })
    .optional()
    .catch(undefined),
});

/** `moderation_engine_blocked` and `_approved`: the message; `_blocked` also `moderation[]`. */
const DecidedSchema = z.looseObject({
  message: MessageSchema,
  moderation: z
    .array(z.looseObject({ rule: RuleSchema.optional().catch(undefined) }))
    .max(50)
    .optional()
    .catch(undefined),
  reviewed: z.boolean().optional().catch(undefined),
});

const FAILURE_CATEGORIES = [
  'http_4xx',
  'http_5xx',
  'timeout',
  'connection_error',
  'invalid_response',
  'not_configured',
] as const;

/**
 * One failed attempt of an engine. Its `errorMessage` and `responseBody` are never read: an
 * engine's answer may quote the message it was given.
 */
const FailureSchema = z.looseObject({
  category: z.enum(FAILURE_CATEGORIES).or(z.string().max(50)),
  failedAt: When.optional().catch(undefined),
  httpStatus: z.number().int().optional().catch(undefined),
  timeoutMs: z.number().optional().catch(undefined),
  context: z
    .looseObject({
      engine: z.string().max(50).optional().catch(undefined),
      setting: z.string().max(50).optional().catch(undefined),
      rule: z
        .looseObject({
          id: z.string().min(1).max(100),
          name: Name.optional().catch(undefined),
          revisionId: z.string().max(300).optional().catch(undefined),
        })
        .optional()
        .catch(undefined),
    })
    .optional()
    .catch(undefined),
});

/** The message's ids, as `moderation_engine_failed` names it (no text). */
const ResourceSchema = z.looseObject({
  id: Id.optional().catch(undefined),
  messageId: Id.optional().catch(undefined),
  conversationId: z.string().max(300).optional().catch(undefined),
  sender: Uid.optional().catch(undefined),
  receiverType: z.enum(['user', 'group']).optional().catch(undefined),
  receiver: Uid.optional().catch(undefined),
});

const FailedSchema = z.looseObject({
  resource: ResourceSchema.optional().catch(undefined),
  contentType: z.string().max(50).optional().catch(undefined),
  outcome: z.string().max(50).optional().catch(undefined),
  completedAt: When.optional().catch(undefined),
  failures: z.array(FailureSchema).min(1).max(100),
});

/** A message as an alert names it: ids only. */
export const MessageFactsSchema = z.object({
  id: z.string().optional(),
  conversationId: z.string().optional(),
  sender: z.string().optional(),
  receiverType: z.enum(['user', 'group']).optional(),
  receiver: z.string().optional(),
  type: z.string().optional(),
  /** Unix seconds. */
  sentAt: z.number().optional(),
  editedAt: z.number().optional(),
});
export type MessageFacts = z.infer<typeof MessageFactsSchema>;

export const RuleFactsSchema = z.object({
  id: z.string(),
  name: z.string().optional(),
  revisionId: z.string().optional(),
  actions: z.array(z.string()).default([]),
});
export type RuleFacts = z.infer<typeof RuleFactsSchema>;

/** Failures alike: one engine, one rule and one category, with how many there were. */
export const FailureGroupSchema = z.object({
  engine: z.string(),
  /** What the engine's setting does to a message meanwhile: `approve-message`, `drop-message`. */
  setting: z.string().optional(),
  rule: RuleFactsSchema.omit({ actions: true }).optional(),
  category: z.string(),
  count: z.number().int().positive(),
  httpStatus: z.number().int().optional(),
  timeoutMs: z.number().optional(),
});
export type FailureGroup = z.infer<typeof FailureGroupSchema>;

/** What is kept of a moderation webhook (the stored event's body), and all an alert shows. */
export const ModerationFactsSchema = z.discriminatedUnion('trigger', [
  z.object({
    trigger: z.enum(['moderation_engine_blocked', 'moderation_manual_approved']),
    message: MessageFactsSchema,
    rules: z.array(RuleFactsSchema),
  }),
  z.object({
    trigger: z.literal('moderation_engine_failed'),
    message: MessageFactsSchema,
    contentType: z.string().optional(),
    /** What became of the message anyway, in CometChat's word. */
    outcome: z.string().optional(),
    completedAt: When.optional(),
    groups: z.array(FailureGroupSchema),
  }),
]);
export type ModerationFacts = z.infer<typeof ModerationFactsSchema>;

function messageFacts(message: z.infer<typeof MessageSchema>): MessageFacts {
  const { id, conversationId, sender, receiverType, receiver, type, sentAt, editedAt } = message;
  return { id, conversationId, sender, receiverType, receiver, type, sentAt, editedAt };
}

function ruleFacts(rule: z.infer<typeof RuleSchema>): RuleFacts {
  const { id, name, revisionId } = rule;
  return { id, name, revisionId, actions: rule.action ?? [] };
}

/** The rules a decision names: `moderation[]`'s, else the message's own; each once. */
function rulesOf(data: z.infer<typeof DecidedSchema>): RuleFacts[] {
  const named = (data.moderation ?? []).flatMap((entry) => (entry.rule ? [entry.rule] : []));
  const own = data.message.data?.moderation?.rule;
  const rules = named.length > 0 ? named : own ? [own] : [];
  const seen = new Set<string>();
  return rules.flatMap((rule) => {
    if (seen.has(rule.id)) return [];
    seen.add(rule.id);
    return [ruleFacts(rule)];
  });
}

/** The rule a failure names, as blocked items name theirs, its name when a failure gives one. */
type FailedRule = Omit<RuleRef, 'name'> & { name?: RuleRef['name'] | undefined };

/** The failures of one event, one group per engine, rule and category, first seen first. Pure. */
export function groupFailures(failures: readonly z.infer<typeof FailureSchema>[]): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const failure of failures) {
    const engine = failure.context?.engine ?? 'unknown';
    const rule = failure.context?.rule;
    const key = JSON.stringify([engine, rule?.id ?? '', failure.category]);
    const kept = groups.get(key);
    if (kept) {
      kept.count += 1;
      continue;
    }
    const named: FailedRule | undefined = rule
      ? { id: rule.id, name: rule.name, revisionId: rule.revisionId }
      : undefined;
    groups.set(key, {
      engine,
      setting: failure.context?.setting,
      rule: named,
      category: failure.category,
      count: 1,
      httpStatus: failure.httpStatus,
      timeoutMs: failure.timeoutMs,
    });
  }
  return [...groups.values()];
}

function failedFacts(data: z.infer<typeof FailedSchema>): ModerationFacts {
  const resource = data.resource ?? {};
  const { conversationId, sender, receiverType, receiver } = resource;
  return {
    trigger: 'moderation_engine_failed',
    message: {
      id: resource.id ?? resource.messageId,
      conversationId,
      sender,
      receiverType,
      receiver,
    },
    contentType: data.contentType,
    outcome: data.outcome,
    completedAt: data.completedAt,
    groups: groupFailures(data.failures),
  };
}

/**
 * The facts of a moderation trigger's data, or undefined when it is not of the trigger's shape.
 * `moderation_engine_approved` is read like `_blocked` (and never posted). Pure.
 */
export function moderationFacts(
  trigger: ModerationTrigger,
  data: unknown,
): ModerationFacts | undefined {
  if (trigger === 'moderation_engine_failed') {
    const parsed = FailedSchema.safeParse(data);
    return parsed.success ? failedFacts(parsed.data) : undefined;
  }
  const parsed = DecidedSchema.safeParse(data);
  if (!parsed.success) return undefined;
  return {
    trigger: trigger === 'moderation_manual_approved' ? trigger : 'moderation_engine_blocked',
    message: messageFacts(parsed.data.message),
    rules: rulesOf(parsed.data),
  };
}

/**
 * A moderation delivery's id, from what the event is: the app, the trigger and the message (its
 * id, and when it was edited: an edited message is moderated again), and for a failure when the
 * engine gave up (a message may fail again once edited). A message is blocked once, and approved
 * by a moderator once, so these name one event however often CometChat or a proxy sends it; the
 * webhook's own id is left out, as for the call alerts, so two of an app's webhooks pointing here
 * post it once.
 */
export function moderationDeliveryId(
  app: string,
  trigger: ModerationTrigger,
  facts: ModerationFacts,
): string {
  const { message } = facts;
  const parts = [
    app,
    trigger,
    message.id ?? '',
    String(message.editedAt ?? ''),
    facts.trigger === 'moderation_engine_failed' ? String(facts.completedAt ?? '') : '',
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}
