// CometChat's moderation, as the app works with it: the messages people flagged, the messages a
// rule blocked, the rules and their revisions (on the chat host, `/v3/moderation/...`). The
// service's shapes (documented more than one way) are resolved into these by moderation.ts, so
// the queue, the alerts and the rules never see them.

/** A chat message under moderation. Its text is shown to moderators alone. */
export interface ModeratedMessage {
  id: string;
  conversationId: string;
  /** The sender's uid. */
  sender: string;
  /** Where it was sent: to a user, or to a group. */
  receiverType: 'user' | 'group';
  /** The receiving uid or guid. */
  receiver: string;
  /** `message`, `custom`, ... and its type (`text`, `image`, ...). */
  category: string;
  type: string;
  /** The text, for a text message; never logged, never posted in a channel. */
  text?: string | undefined;
  /** Unix seconds. */
  sentAt: number;
}

/** One person's report of a message. */
export interface Flag {
  uid: string;
  name?: string | undefined;
  reasonId?: string | undefined;
  reasonName?: string | undefined;
  remark?: string | undefined;
  /** Unix seconds. */
  flaggedAt?: number | undefined;
}

/** A message people reported, waiting for a decision. */
export interface FlaggedMessage {
  queue: 'flagged';
  message: ModeratedMessage;
  flags: Flag[];
  /** How many reported it (the service's count; at least `flags.length`). */
  flaggedCount: number;
}

/** The rule and revision that decided something, as blocked items and webhooks name them. */
export interface RuleRef {
  id: string;
  name: string;
  revisionId?: string | undefined;
}

/** A message a rule blocked: never delivered, waiting for a decision. */
export interface BlockedMessage {
  queue: 'blocked';
  message: ModeratedMessage;
  rule: RuleRef;
  /** What matched, in the rule's condition's words. */
  conditionMessage?: string | undefined;
  /** The rule's actions: `blockMessage`, `dropMessage`, ... */
  actions: string[];
  /** Unix seconds. */
  blockedAt: number;
}

export type QueuedMessage = FlaggedMessage | BlockedMessage;

/**
 * A decision, in the service's words. Flagged: `approved` leaves the message visible,
 * `disapproved` hides it. Blocked: `approved` delivers it (this cannot be taken back),
 * `rejected` keeps it blocked. Either moves the message to the reviewed list.
 */
export type FlaggedDecision = 'approved' | 'disapproved';
export type BlockedDecision = 'approved' | 'rejected';

/** A moderation rule; `conditions` and `filters` are kept as the service sent them. */
export interface ModerationRule {
  id: string;
  name: string;
  description?: string | undefined;
  enabled: boolean;
  /** Whether the rule is in force (the service's `active`). */
  active: boolean;
  /** One of the service's own rules. */
  isDefault: boolean;
  actions: string[];
  conditions: unknown[];
  filters: unknown[];
  /** `<appId>_<ruleId>_<n>`: changes whenever the rule does. */
  revisionId: string;
  /** Unix seconds. */
  createdAt?: number | undefined;
  updatedAt?: number | undefined;
}

/** What `PUT /v3/moderation/rules/{id}` takes. */
export type RuleUpdate = Pick<
  ModerationRule,
  'id' | 'name' | 'description' | 'enabled' | 'actions' | 'conditions' | 'filters'
>;

export interface ModerationOperations {
  /** The messages people flagged and nobody reviewed yet, as the service lists them. */
  listFlaggedMessages(query?: { limit?: number | undefined }): Promise<FlaggedMessage[]>;
  /** One decision on a flagged message (`ERR_MESSAGE_ID_NOT_FOUND` is `not_found`). */
  decideFlaggedMessage(id: string, decision: FlaggedDecision): Promise<void>;
  /** The messages rules blocked and nobody reviewed yet. */
  listBlockedMessages(query?: { limit?: number | undefined }): Promise<BlockedMessage[]>;
  /** One decision on a blocked message; `approved` delivers it, for good. */
  decideBlockedMessage(id: string, decision: BlockedDecision): Promise<void>;
  /** Every rule (at most 25 an app). */
  listRules(): Promise<ModerationRule[]>;
  /** One rule (`ERR_RULE_NOT_FOUND` is `not_found`). */
  getRule(id: string): Promise<ModerationRule>;
  /** Replaces a rule with this one (creates no rule); answers the rule as stored. */
  updateRule(rule: RuleUpdate): Promise<ModerationRule>;
  /** Every revision of a rule in full, the current one `active`. */
  listRuleRevisions(id: string): Promise<ModerationRule[]>;
}
