import { revisionIdOf } from './moderation-rules.ts';
import type { BlockedRecord, ModerationMessage, SandboxState } from './state.ts';

// The `data` of the moderation webhooks (live-api-notes.md, "Webhooks"), built from the
// stand-in's moderated messages and rules. `moderation_engine_approved` and
// `moderation_engine_blocked` carry the whole message with `data.moderation.status`;
// `moderation_manual_approved` adds what blocked it (`moderation[]`) and `reviewed`;
// `moderation_engine_failed` names the message by its ids only (no text) and says what failed.
// Fields are absent rather than null. What the notes leave open: times are Unix seconds as
// numbers, as in the other webhooks; `reviewed` is `true` (as the blocked message's PATCH sends
// it); `outcome` is `approved` or `blocked`, the event the failure comes in addition to.

export const MODERATION_TRIGGERS = [
  'moderation_engine_approved',
  'moderation_engine_blocked',
  'moderation_manual_approved',
  'moderation_engine_failed',
] as const;
export type ModerationTrigger = (typeof MODERATION_TRIGGERS)[number];

/** `moderation_engine_approved` / `_blocked`: the message, its moderation status in its data. */
export type ModerationMessageData = { message: Record<string, unknown> };

export type ModerationRuleRef = {
  id: string;
  name: string;
  revisionId: string;
};

/** `moderation_manual_approved`: the message, the rules that had blocked it, `reviewed`. */
export type ModerationManualApprovedData = {
  message: Record<string, unknown>;
  moderation: {
    condition: Record<string, unknown>;
    rule: ModerationRuleRef & { action: string[]; blockedAt: number };
  }[];
  reviewed: true;
};

export const FAILURE_CATEGORIES = [
  'http_4xx',
  'http_5xx',
  'timeout',
  'connection_error',
  'invalid_response',
  'not_configured',
] as const;
export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];
export type ModerationEngine = 'openai' | 'custom_api';
/** What the engine's setting does with a message when it gives no decision. */
export type FailureSetting = 'approve-message' | 'drop-message';

export type ModerationFailure = {
  category: FailureCategory;
  errorMessage: string;
  failedAt: number;
  httpStatus?: number;
  /** At most 2 KB, opaque. */
  responseBody?: string;
  timeoutMs?: number;
  context: { engine: ModerationEngine; setting: FailureSetting; rule: ModerationRuleRef };
};

/** `moderation_engine_failed`: the message's ids (no text) and why no engine decided. */
export type ModerationEngineFailedData = {
  resource: {
    id: string;
    conversationId: string;
    sender: string;
    receiverType: 'user' | 'group';
    receiver: string;
  };
  contentType: string;
  /** What happened to the message anyway: the setting's `approve-message` lets it through. */
  outcome: 'approved' | 'blocked';
  completedAt: number;
  failures: ModerationFailure[];
};

/** The message with the engine's decision in `data.moderation.status`. */
export function moderatedMessage(
  message: ModerationMessage,
  status: 'approved' | 'disapproved',
): Record<string, unknown> {
  return { ...message, data: { ...message.data, moderation: { status } } };
}

export function engineDecisionData(
  message: ModerationMessage,
  decision: 'approved' | 'blocked',
): ModerationMessageData {
  return {
    message: moderatedMessage(message, decision === 'approved' ? 'approved' : 'disapproved'),
  };
}

/** A blocked message a moderator delivered: the rule that had blocked it, and `reviewed`. */
export function manualApprovedData(item: BlockedRecord): ModerationManualApprovedData {
  return {
    message: moderatedMessage(item.message, 'approved'),
    moderation: [
      {
        condition: item.condition,
        rule: {
          id: item.ruleId,
          name: item.ruleName,
          revisionId: item.revisionId,
          action: [...item.action],
          blockedAt: item.createdAt,
        },
      },
    ],
    reviewed: true,
  };
}

export interface FailureOptions {
  category?: FailureCategory | undefined;
  engine?: ModerationEngine | undefined;
  setting?: FailureSetting | undefined;
  rule: ModerationRuleRef;
  /** Unix seconds; default one second after the message was sent. */
  at?: number | undefined;
}

/** One failure of the category, with the fields that category has and no others. */
export function failureOf(options: FailureOptions & { at: number }): ModerationFailure {
  const context = {
    engine: options.engine ?? 'custom_api',
    setting: options.setting ?? 'approve-message',
    rule: { ...options.rule },
  };
  const category = options.category ?? 'timeout';
  const base = { category, failedAt: options.at, context };
  switch (category) {
    case 'http_4xx':
      return {
        ...base,
        errorMessage: 'The engine refused the request.',
        httpStatus: 401,
        responseBody: '{"error":"invalid api key"}',
      };
    case 'http_5xx':
      return {
        ...base,
        errorMessage: 'The engine failed.',
        httpStatus: 503,
        responseBody: '<html>Service Unavailable</html>',
      };
    case 'timeout':
      return { ...base, errorMessage: 'The engine did not answer in time.', timeoutMs: 5000 };
    case 'connection_error':
      return { ...base, errorMessage: 'connect ECONNREFUSED 203.0.113.7:443' };
    case 'invalid_response':
      return {
        ...base,
        errorMessage: 'The engine answered without isMatchingCondition.',
        httpStatus: 200,
        responseBody: '{"ok":true}',
      };
    case 'not_configured':
      return { ...base, errorMessage: 'No engine URL is set for the rule.' };
  }
}

/**
 * An engine that gave no decision on the message: the outcome follows the setting
 * (`approve-message` delivers it unchecked, `drop-message` blocks it).
 */
export function engineFailedData(
  message: ModerationMessage,
  options: FailureOptions,
): ModerationEngineFailedData {
  const at = options.at ?? message.sentAt + 1;
  const failure = failureOf({ ...options, at });
  return {
    resource: {
      id: message.id,
      conversationId: message.conversationId,
      sender: message.sender,
      receiverType: message.receiverType,
      receiver: message.receiver,
    },
    contentType: message.type,
    outcome: failure.context.setting === 'approve-message' ? 'approved' : 'blocked',
    completedAt: at,
    failures: [failure],
  };
}

/** A moderated message of the state by id: in a queue, or reviewed. */
export function findModerated(
  state: SandboxState,
  id: string,
): { message: ModerationMessage; blocked?: BlockedRecord } | undefined {
  const { flagged, blocked, reviewed } = state.moderation;
  const flaggedItem = flagged.get(id);
  if (flaggedItem) return { message: flaggedItem };
  const blockedItem = blocked.get(id);
  if (blockedItem) return { message: blockedItem.message, blocked: blockedItem };
  for (const record of reviewed) {
    if (record.queue === 'flagged' && record.item.id === id) return { message: record.item };
    if (record.queue === 'blocked' && record.item.message.id === id) {
      return { message: record.item.message, blocked: record.item };
    }
  }
  return undefined;
}

export interface ModerationWebhookOptions {
  /** engine_failed: the failure's category (default `timeout`). */
  category?: FailureCategory | undefined;
  engine?: ModerationEngine | undefined;
  /** engine_failed: default `drop-message` for a blocked message, else `approve-message`. */
  setting?: FailureSetting | undefined;
  /** engine_failed: the rule the engine ran for (default the blocking one, else the first). */
  ruleId?: string | undefined;
  at?: number | undefined;
}

/**
 * A moderation trigger's data for a seeded message (flagged, blocked or reviewed). Throws for an
 * unknown message, and for `moderation_manual_approved` of a message no rule blocked.
 */
export function moderationData(
  state: SandboxState,
  appId: string,
  trigger: ModerationTrigger,
  id: string,
  options: ModerationWebhookOptions = {},
): Record<string, unknown> {
  const found = findModerated(state, id);
  if (found === undefined) throw new Error(`webhooks: no moderated message "${id}"`);
  if (trigger === 'moderation_engine_approved')
    return engineDecisionData(found.message, 'approved');
  if (trigger === 'moderation_engine_blocked') return engineDecisionData(found.message, 'blocked');
  if (trigger === 'moderation_manual_approved') {
    if (!found.blocked) throw new Error(`webhooks: no rule blocked the message "${id}"`);
    return manualApprovedData(found.blocked);
  }
  return engineFailedData(found.message, {
    ...options,
    setting: options.setting ?? (found.blocked ? 'drop-message' : 'approve-message'),
    rule: ruleRef(state, appId, options.ruleId ?? found.blocked?.ruleId),
  });
}

function ruleRef(state: SandboxState, appId: string, id: string | undefined): ModerationRuleRef {
  const ruleId = id ?? [...state.moderation.rules.keys()][0] ?? '';
  const revisions = state.moderation.rules.get(ruleId);
  const rule = revisions?.[revisions.length - 1];
  if (rule === undefined) throw new Error(`webhooks: no rule "${ruleId}"`);
  return { id: rule.id, name: rule.name, revisionId: revisionIdOf(appId, rule.id, rule.revision) };
}
