import { conversationIdOf } from './conversations.ts';
import type {
  BlockedDecision,
  BlockedMessage,
  FlaggedDecision,
  FlaggedMessage,
  ModeratedMessage,
  ModerationOperations,
  ModerationRule,
  RuleUpdate,
} from './moderation-model.ts';
import {
  type BlockedItem,
  BlockedListResponseSchema,
  DecisionResponseSchema,
  type FlaggedItem,
  FlaggedListResponseSchema,
  type ModeratedMessageRecord,
  RuleListResponseSchema,
  type RuleRecord,
  RuleResponseSchema,
} from './moderation-schemas.ts';
import { segment } from './refusals.ts';
import type { Send, Sender } from './send.ts';

// Moderation, on the REST API's host with the `apikey` header (`/v3/moderation/...`): the
// flagged and blocked messages and the decisions on them, the rules and their revisions. Each
// request is one ky call and its schema; the answers' documented shapes are resolved here into
// moderation-model.ts's types.
//
// A decision is a PATCH, which the host's ky instance does not retry (ky-instance.ts retries
// GET, PUT and DELETE): once the first PATCH took, the message has left the list, and a repeat
// would be answered `ERR_MESSAGE_ID_NOT_FOUND`, hiding that the decision was made.

/**
 * The page size's parameter: the documents show one but do not publish its name, so `limit` (the
 * name the rules list takes) is a guess.
 */
const PAGE_SIZE_PARAMETER = 'limit';

/** The rules list's page: an app has at most 25 rules (the service types the value as text). */
const MAX_RULES = '25';

/** Arrow properties, not methods over `this`: a caller may well pass one around on its own. */
export class ModerationRequests implements ModerationOperations {
  readonly #send: Send;

  constructor({ send }: Sender) {
    this.#send = send;
  }

  listFlaggedMessages = async (query: { limit?: number | undefined } = {}) => {
    const searchParams = { [PAGE_SIZE_PARAMETER]: query.limit };
    const { data } = await this.#send('listFlaggedMessages', ({ api }) =>
      api.get('moderation/flagged-messages', { searchParams }).json(FlaggedListResponseSchema),
    );
    return data.map(toFlaggedMessage);
  };

  decideFlaggedMessage = async (id: string, decision: FlaggedDecision) => {
    await this.#send('decideFlaggedMessage', ({ api }) =>
      api
        .patch(`moderation/flagged-messages/${segment(id, 'message id')}`, {
          json: { status: decision },
        })
        .json(DecisionResponseSchema),
    );
  };

  listBlockedMessages = async (query: { limit?: number | undefined } = {}) => {
    const searchParams = { [PAGE_SIZE_PARAMETER]: query.limit };
    const { data } = await this.#send('listBlockedMessages', ({ api }) =>
      api.get('moderation/blocked-messages', { searchParams }).json(BlockedListResponseSchema),
    );
    return data.map(toBlockedMessage);
  };

  /** The current form, `reviewed` with the status (an older one took the status alone). */
  decideBlockedMessage = async (id: string, decision: BlockedDecision) => {
    await this.#send('decideBlockedMessage', ({ api }) =>
      api
        .patch(`moderation/blocked-messages/${segment(id, 'message id')}`, {
          json: { status: decision, reviewed: true },
        })
        .json(DecisionResponseSchema),
    );
  };

  listRules = async () => {
    const { data } = await this.#send('listRules', ({ api }) =>
      api
        .get('moderation/rules', { searchParams: { limit: MAX_RULES } })
        .json(RuleListResponseSchema),
    );
    return data.map(toRule);
  };

  getRule = async (id: string) => {
    const { data } = await this.#send('getRule', ({ api }) =>
      api.get(`moderation/rules/${segment(id, 'rule id')}`).json(RuleResponseSchema),
    );
    return toRule(data);
  };

  /** The whole rule, as the PUT takes it: what is left out would be left out of the rule. */
  updateRule = async (rule: RuleUpdate) => {
    const json = {
      id: rule.id,
      name: rule.name,
      enabled: rule.enabled,
      ...(rule.description === undefined ? {} : { description: rule.description }),
      action: rule.actions,
      filters: rule.filters,
      conditions: rule.conditions,
    };
    const { data } = await this.#send('updateRule', ({ api }) =>
      api.put(`moderation/rules/${segment(rule.id, 'rule id')}`, { json }).json(RuleResponseSchema),
    );
    return toRule(data);
  };

  listRuleRevisions = async (id: string) => {
    const { data } = await this.#send('listRuleRevisions', ({ api }) =>
      api.get(`moderation/rules/${segment(id, 'rule id')}/revisions`).json(RuleListResponseSchema),
    );
    return data.map(toRule);
  };
}

/**
 * The message as the app keeps it. The text only for a text message (another's `data.text` is a
 * caption or a file's name); a missing conversation id is made as CometChat makes them.
 */
export function toModeratedMessage(record: ModeratedMessageRecord): ModeratedMessage {
  const text = record.data?.text;
  const isText = record.category === 'message' && record.type === 'text';
  return {
    id: record.id,
    conversationId: record.conversationId ?? conversationIdOf(record),
    sender: record.sender,
    receiverType: record.receiverType,
    receiver: record.receiver,
    category: record.category,
    type: record.type,
    text: isText && typeof text === 'string' ? text : undefined,
    sentAt: record.sentAt ?? 0,
  };
}

export function toFlaggedMessage(item: FlaggedItem): FlaggedMessage {
  const flags = item.flaggedBy.map((flag) => ({
    uid: flag.uid,
    name: flag.name,
    reasonId: flag.reasonId,
    reasonName: flag.reasonName,
    remark: flag.remark,
    flaggedAt: flag.flaggedAt,
  }));
  return {
    queue: 'flagged',
    message: toModeratedMessage(item),
    flags,
    flaggedCount: Math.max(item.flaggedCount ?? 0, flags.length),
  };
}

export function toBlockedMessage(item: BlockedItem): BlockedMessage {
  const message = toModeratedMessage(item.message);
  return {
    queue: 'blocked',
    message,
    rule: { id: item.ruleId, name: item.ruleName, revisionId: item.revisionId },
    conditionMessage: item.condition?.message,
    actions: item.action,
    blockedAt: item.blockedAt ?? item.createdAt ?? message.sentAt,
  };
}

export function toRule(record: RuleRecord): ModerationRule {
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    enabled: record.enabled,
    active: record.active ?? record.enabled,
    isDefault: record.default,
    actions: record.action,
    conditions: record.conditions,
    filters: record.filters,
    revisionId: record.revisionId,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}
