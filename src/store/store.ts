import {
  type ApprovalRequest,
  type AuditPost,
  type AuditRecord,
  auditRoles,
  type KnownPermissions,
  type SeenRevision,
  type Subscription,
  type WebhookEvent,
} from './stored-records.ts';

// The records are defined once, as the schemas a backend parses them with (stored-records.ts);
// they are exported here too, beside the interface that takes and returns them.
export {
  type ApprovalRequest,
  type ApprovalStatus,
  type AuditApproval,
  type AuditChange,
  type AuditPost,
  type AuditRecord,
  type AuditStep,
  type ChangeSubject,
  DEFAULT_APP,
  failedSteps,
  type KnownPermissions,
  knownScopeKey,
  type SeenRevision,
  type Subscription,
  type SubscriptionKind,
  type WebhookEvent,
} from './stored-records.ts';

export interface AuditPage {
  records: AuditRecord[];
  total: number;
}

/** Which audit records `listAudit` lists (`app`, `role`, each when given), and which page. */
export interface AuditQuery {
  app?: string | undefined;
  role?: string | undefined;
  offset: number;
  limit: number;
}

/**
 * One page of `listAuditBetween`: one app's records from `from` (inclusive) to `to` (exclusive),
 * Unix ms, oldest first (then by `ref`), those after `after` (the last record of the page
 * before: a keyset, so a record added meanwhile shifts no page), at most `limit` of them.
 */
export interface AuditRangeQuery {
  app: string;
  from: number;
  to: number;
  after?: Pick<AuditRecord, 'at' | 'ref'> | undefined;
  limit: number;
}

/** Which subscriptions `listSubscriptions` lists: of one app, of one channel, each when given. */
export interface SubscriptionQuery {
  app?: string | undefined;
  channel?: string | undefined;
}

/** The most webhook events one `listWebhookEvents` returns. */
export const WEBHOOK_EVENTS_LIMIT = 100;

/** The most audit posts one `listAuditPosts` returns. */
export const AUDIT_POSTS_LIMIT = 100;

/**
 * The app's small durable state, behind one interface so that a single process can keep it in
 * memory or a file, and several replicas can share it (Redis). Known permissions and audit
 * records belong to one CometChat app (its configured name: lower-case letters, digits and `-`);
 * what an earlier version stored reads as `DEFAULT_APP`.
 */
export interface Store {
  getKnownPermissions(app: string, role: string): Promise<KnownPermissions | undefined>;
  /** Replaces what is known of `known.role` in `known.app`. */
  setKnownPermissions(known: KnownPermissions): Promise<void>;
  /** The revision of each of `app`'s moderation rules this app last saw, by rule id. */
  getSeenRevisions(app: string): Promise<Map<string, SeenRevision>>;
  /** Replaces what was last seen of `seen.rule` in `seen.app`. */
  setSeenRevision(seen: SeenRevision): Promise<void>;
  /**
   * Takes the claim `id` if nobody holds it; true for exactly one caller, across replicas too.
   * This is what makes a confirmation apply once, however often it is submitted. Ids are opaque
   * and shared by every app: a caller makes them unique per app (by hashing the app into them).
   */
  claim(id: string, ttlSeconds: number): Promise<boolean>;
  /**
   * Gives the claim `id` a new life of `ttlSeconds` from now, if it is still held: taken short
   * while work that may not finish is under way, and made long once it is done, a claim that a
   * stop left behind frees itself soon. False when it is not held (expired, or released).
   */
  renewClaim(id: string, ttlSeconds: number): Promise<boolean>;
  release(id: string): Promise<void>;
  /**
   * Adds a record; a record with a `ref` already stored replaces nothing and is ignored. Either
   * way the pending record of that `ref` is gone with it, in the same step. With `postTo` (a channel), a
   * record that is added has its post kept in that same step (attempts 0, due at its `at`),
   * until removeAuditPost: so a stop right after the record cannot lose the post.
   */
  appendAudit(record: AuditRecord, postTo?: string): Promise<void>;
  /**
   * Audit posts due before `before` (Unix ms), the earliest due first (then by `ref`), at most
   * AUDIT_POSTS_LIMIT of them.
   */
  listAuditPosts(before: number): Promise<AuditPost[]>;
  /**
   * Replaces the kept post of `post.record.ref` (its attempts and when it is due); a post no
   * longer kept (Slack took it, through another replica) stays gone.
   */
  updateAuditPost(post: AuditPost): Promise<void>;
  /** Forgets a post Slack took (or that can never be made); one not kept is no error. */
  removeAuditPost(ref: string): Promise<void>;
  /**
   * Keeps, before an update is sent, the record it becomes if the app stops before the answer
   * (outcome `unknown`), under the attempt's `ref`. The answer's record replaces it (appendAudit);
   * one left behind is turned into its record by the pending-record sweep.
   */
  putPending(record: AuditRecord): Promise<void>;
  /** Intents whose `at` (Unix ms) is before `before`, oldest first. */
  listPending(before: number): Promise<AuditRecord[]>;
  /** Creates or replaces an approval request (by `id`). */
  putApproval(request: ApprovalRequest): Promise<void>;
  getApproval(id: string): Promise<ApprovalRequest | undefined>;
  /** Requests still `open` (expired ones included until marked), oldest first. */
  listOpenApprovals(): Promise<ApprovalRequest[]>;
  /**
   * Requests a Workflow Builder step made whose step is not completed yet (no `stepCompletedAt`),
   * whatever their status, oldest first: the sweep completes those that are decided.
   */
  listUnendedStepApprovals(): Promise<ApprovalRequest[]>;
  /**
   * Newest first; `app` narrows to one app, `role` to the records filed under one role (of every
   * app, or of `app`): see auditRoles, which files a change of a user's role under both roles.
   */
  listAudit(query: AuditQuery): Promise<AuditPage>;
  /** The audit record of `ref`, whichever its app; undefined when none is stored. */
  getAudit(ref: string): Promise<AuditRecord | undefined>;
  /** A page of one app's records in a time range, oldest first (the export reads it page by page). */
  listAuditBetween(query: AuditRangeQuery): Promise<AuditRecord[]>;
  /**
   * Removes every audit record whose `at` is before `before` (Unix ms), of every app, with its
   * index entries and any post of it not yet made. Returns how many it removed, by app.
   */
  pruneAudit(before: number): Promise<Map<string, number>>;
  /** Creates or replaces a channel's subscription (by `id`). */
  putSubscription(subscription: Subscription): Promise<void>;
  /** Oldest first (by `createdAt`, then `id`); `app` and `channel` narrow, each when given. */
  listSubscriptions(query: SubscriptionQuery): Promise<Subscription[]>;
  /**
   * The subscriptions of `channels`, every app's, by channel ({@link bySubscriptionChannel}),
   * then oldest first: what is read is theirs alone, however many other channels have some (the
   * Home tab reads a person's channels).
   */
  listSubscriptionsIn(channels: readonly string[]): Promise<Subscription[]>;
  /** How many subscriptions are kept, of every app and channel: read, not counted. */
  countSubscriptions(): Promise<number>;
  /** True when a subscription of that id existed (and is now gone). */
  removeSubscription(id: string): Promise<boolean>;
  /**
   * Keeps a webhook event until it is handled, once: takes the claim on its id
   * ({@link webhookClaimId}) for `claimSeconds` and stores the event in one step, so that a stop
   * between the two cannot leave the claim without the event, and a retry of a delivery that
   * was never kept refused. False, with nothing changed, while the claim is held: the same
   * delivery again, from CometChat, a proxy or another replica.
   */
  keepWebhookEvent(event: WebhookEvent, claimSeconds: number): Promise<boolean>;
  /**
   * Events whose `receivedAt` (Unix ms) is before `before`, oldest first (then by `id`), at most
   * WEBHOOK_EVENTS_LIMIT of them.
   */
  listWebhookEvents(before: number): Promise<WebhookEvent[]>;
  /** Forgets a handled event; one that is not stored is no error. */
  removeWebhookEvent(id: string): Promise<void>;
  /**
   * Counts one more alert in `channel`'s burst window, in one step shared by every replica: a
   * window begins at the first alert and lasts `windowMs`; the first alert at or past its end
   * begins the next (with no count message). Windows past their end are forgotten in time.
   */
  countBurstAlert(channel: string, now: number, windowMs: number): Promise<BurstCount>;
  /** The channel's latest burst window, if one is kept. */
  getBurstWindow(channel: string): Promise<BurstWindow | undefined>;
  /** Keeps the ts of the count message of `channel`'s window begun at `start`, if still current. */
  setBurstCountTs(channel: string, start: number, ts: string): Promise<void>;
  /**
   * Keeps how many of its alerts `replica` has had Slack show in that window's count message
   * (replacing what it kept before), if the window is still current.
   */
  setBurstShown(channel: string, start: number, replica: string, shown: number): Promise<void>;
  /**
   * Rejects unless the store can be written now (readiness): a small write on SQLite, a PING on
   * Redis. Cheap enough for every /readyz.
   */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A channel's alerts in one burst window (features/alerts/burst.ts), as counted. */
export interface BurstCount {
  /** When the window began (Unix ms). */
  start: number;
  /** The alerts counted in it so far. */
  alerts: number;
}

/** A burst window with its count message. */
export interface BurstWindow extends BurstCount {
  /** The ts of its count message, once one was posted. */
  countTs?: string;
  /** Each replica's alerts that Slack shows in the count message, by the replica's id. */
  shown: Record<string, number>;
}

/** The claim that keeps a webhook delivery once (keepWebhookEvent), among every other claim. */
export function webhookClaimId(eventId: string): string {
  return `webhook:${eventId}`;
}

/** A store for one process, kept in memory (tests, and the offline try). */
export function createMemoryStore(now: () => number = Date.now): Store {
  return new MemoryStore(now);
}

/**
 * Everything is cloned on the way in and out, so a caller never shares an object with the store.
 *
 * Like every backend, its operations are arrow-function fields and its state is `#private`:
 * callers treat a store as a plain object of its operations (observedStore wraps each own
 * property by name; tests spread a store to replace one operation), so the operations must be
 * its own properties, bound to it, and the only ones.
 */
class MemoryStore implements Store {
  readonly #known = new Map<string, KnownPermissions>();
  readonly #revisions = new Map<string, SeenRevision>();
  /** Claim id to the Unix ms when it expires. */
  readonly #claims = new Map<string, number>();
  readonly #audit: AuditRecord[] = [];
  readonly #intents = new Map<string, AuditRecord>();
  readonly #auditPosts = new Map<string, AuditPost>();
  readonly #approvals = new Map<string, ApprovalRequest>();
  readonly #subscriptions = new Map<string, Subscription>();
  readonly #webhookEvents = new Map<string, WebhookEvent>();
  readonly #bursts = new Map<string, BurstWindow>();

  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  readonly getKnownPermissions = async (
    app: string,
    role: string,
  ): Promise<KnownPermissions | undefined> => {
    const entry = this.#known.get(knownKey(app, role));
    return entry ? structuredClone(entry) : undefined;
  };

  readonly setKnownPermissions = async (entry: KnownPermissions): Promise<void> => {
    this.#known.set(knownKey(entry.app, entry.role), structuredClone(entry));
  };

  readonly getSeenRevisions = async (app: string): Promise<Map<string, SeenRevision>> => {
    const seen = [...this.#revisions.values()].filter((r) => r.app === app);
    return new Map(seen.map((r) => [r.rule, structuredClone(r)]));
  };

  readonly setSeenRevision = async (seen: SeenRevision): Promise<void> => {
    this.#revisions.set(knownKey(seen.app, seen.rule), structuredClone(seen));
  };

  readonly claim = async (id: string, ttlSeconds: number): Promise<boolean> => {
    return this.#takeClaim(id, ttlSeconds);
  };

  readonly renewClaim = async (id: string, ttlSeconds: number): Promise<boolean> => {
    const expires = this.#claims.get(id);
    if (expires === undefined || expires <= this.#now()) return false;
    this.#claims.set(id, this.#now() + ttlSeconds * 1000);
    return true;
  };

  readonly release = async (id: string): Promise<void> => {
    this.#claims.delete(id);
  };

  readonly appendAudit = async (record: AuditRecord, postTo?: string): Promise<void> => {
    this.#intents.delete(record.ref);
    if (this.#audit.some((r) => r.ref === record.ref)) return;
    this.#audit.push(structuredClone(record));
    if (postTo === undefined) return;
    this.#auditPosts.set(
      record.ref,
      structuredClone({ record, channel: postTo, attempts: 0, dueAt: record.at }),
    );
  };

  readonly listAuditPosts = async (before: number): Promise<AuditPost[]> => {
    return structuredClone(
      [...this.#auditPosts.values()]
        .filter((p) => p.dueAt < before)
        .sort((a, b) => a.dueAt - b.dueAt || byId({ id: a.record.ref }, { id: b.record.ref }))
        .slice(0, AUDIT_POSTS_LIMIT),
    );
  };

  readonly updateAuditPost = async (post: AuditPost): Promise<void> => {
    if (this.#auditPosts.has(post.record.ref)) {
      this.#auditPosts.set(post.record.ref, structuredClone(post));
    }
  };

  readonly removeAuditPost = async (ref: string): Promise<void> => {
    this.#auditPosts.delete(ref);
  };

  readonly putPending = async (record: AuditRecord): Promise<void> => {
    this.#intents.set(record.ref, structuredClone(record));
  };

  readonly listPending = async (before: number): Promise<AuditRecord[]> => {
    return structuredClone(
      [...this.#intents.values()].filter((r) => r.at < before).sort((a, b) => a.at - b.at),
    );
  };

  readonly putApproval = async (request: ApprovalRequest): Promise<void> => {
    this.#approvals.set(request.id, structuredClone(request));
  };

  readonly getApproval = async (id: string): Promise<ApprovalRequest | undefined> => {
    const request = this.#approvals.get(id);
    return request ? structuredClone(request) : undefined;
  };

  readonly listOpenApprovals = async (): Promise<ApprovalRequest[]> => {
    return structuredClone(
      [...this.#approvals.values()]
        .filter((r) => r.status === 'open')
        .sort((a, b) => a.requestedAt - b.requestedAt),
    );
  };

  readonly listUnendedStepApprovals = async (): Promise<ApprovalRequest[]> => {
    return structuredClone(
      [...this.#approvals.values()]
        .filter((r) => r.workflowStep !== undefined && r.stepCompletedAt === undefined)
        .sort((a, b) => a.requestedAt - b.requestedAt),
    );
  };

  readonly listAudit = async ({ app, role, offset, limit }: AuditQuery): Promise<AuditPage> => {
    const matching = this.#audit
      .filter(
        (r) =>
          (app === undefined || r.app === app) &&
          (role === undefined || auditRoles(r).includes(role)),
      )
      .sort((a, b) => b.at - a.at || b.ref.localeCompare(a.ref));
    return {
      records: structuredClone(matching.slice(offset, offset + limit)),
      total: matching.length,
    };
  };

  readonly getAudit = async (ref: string): Promise<AuditRecord | undefined> => {
    const record = this.#audit.find((r) => r.ref === ref);
    return record ? structuredClone(record) : undefined;
  };

  readonly listAuditBetween = async (query: AuditRangeQuery): Promise<AuditRecord[]> => {
    const { app, from, to, after, limit } = query;
    return structuredClone(
      this.#audit
        .filter(
          (r) => r.app === app && r.at >= from && r.at < to && (!after || byTime(after, r) < 0),
        )
        .sort(byTime)
        .slice(0, Math.max(0, limit)),
    );
  };

  readonly pruneAudit = async (before: number): Promise<Map<string, number>> => {
    const removed = new Map<string, number>();
    for (let i = this.#audit.length - 1; i >= 0; i -= 1) {
      const record = this.#audit[i];
      if (record === undefined || record.at >= before) continue;
      this.#audit.splice(i, 1);
      this.#auditPosts.delete(record.ref);
      removed.set(record.app, (removed.get(record.app) ?? 0) + 1);
    }
    return removed;
  };

  readonly putSubscription = async (subscription: Subscription): Promise<void> => {
    this.#subscriptions.set(subscription.id, structuredClone(subscription));
  };

  readonly listSubscriptions = async ({
    app,
    channel,
  }: SubscriptionQuery): Promise<Subscription[]> => {
    return structuredClone(
      [...this.#subscriptions.values()]
        .filter(
          (s) =>
            (app === undefined || s.app === app) &&
            (channel === undefined || s.channel === channel),
        )
        .sort((a, b) => a.createdAt - b.createdAt || byId(a, b)),
    );
  };

  readonly listSubscriptionsIn = async (channels: readonly string[]): Promise<Subscription[]> => {
    const asked = new Set(channels);
    return structuredClone(
      [...this.#subscriptions.values()]
        .filter((s) => asked.has(s.channel))
        .sort(bySubscriptionChannel),
    );
  };

  readonly countSubscriptions = async (): Promise<number> => this.#subscriptions.size;

  readonly removeSubscription = async (id: string): Promise<boolean> => {
    return this.#subscriptions.delete(id);
  };

  readonly keepWebhookEvent = async (event: WebhookEvent, claimSeconds: number) => {
    // One synchronous step: no other call runs between the claim and the event.
    if (!this.#takeClaim(webhookClaimId(event.id), claimSeconds)) return false;
    this.#webhookEvents.set(event.id, structuredClone(event));
    return true;
  };

  readonly listWebhookEvents = async (before: number): Promise<WebhookEvent[]> => {
    return structuredClone(
      [...this.#webhookEvents.values()]
        .filter((e) => e.receivedAt < before)
        .sort((a, b) => a.receivedAt - b.receivedAt || byId(a, b))
        .slice(0, WEBHOOK_EVENTS_LIMIT),
    );
  };

  readonly removeWebhookEvent = async (id: string): Promise<void> => {
    this.#webhookEvents.delete(id);
  };

  readonly countBurstAlert = async (channel: string, now: number, windowMs: number) => {
    const kept = this.#bursts.get(channel);
    const window: BurstWindow =
      kept && now - kept.start < windowMs
        ? { ...kept, alerts: kept.alerts + 1 }
        : { start: now, alerts: 1, shown: {} };
    this.#bursts.set(channel, window);
    // Forgotten as Redis expires them: a window past its end is begun again anyway.
    if (window.alerts === 1) {
      for (const [other, w] of this.#bursts)
        if (now - w.start >= 2 * windowMs) this.#bursts.delete(other);
    }
    return { start: window.start, alerts: window.alerts };
  };

  readonly getBurstWindow = async (channel: string): Promise<BurstWindow | undefined> => {
    const window = this.#bursts.get(channel);
    return window ? structuredClone(window) : undefined;
  };

  readonly setBurstShown = async (
    channel: string,
    start: number,
    replica: string,
    shown: number,
  ) => {
    const window = this.#bursts.get(channel);
    if (window?.start === start) {
      this.#bursts.set(channel, { ...window, shown: { ...window.shown, [replica]: shown } });
    }
  };

  readonly setBurstCountTs = async (channel: string, start: number, ts: string) => {
    const window = this.#bursts.get(channel);
    if (window?.start === start) this.#bursts.set(channel, { ...window, countTs: ts });
  };

  readonly ping = async (): Promise<void> => {};

  /** Takes claim `id` unless a live one holds it. */
  #takeClaim(id: string, ttlSeconds: number): boolean {
    const expires = this.#claims.get(id);
    if (expires !== undefined && expires > this.#now()) return false;
    this.#claims.set(id, this.#now() + ttlSeconds * 1000);
    return true;
  }

  readonly close = async (): Promise<void> => {};
}

/** [app, role] as JSON: no separator can be confused with part of a name. */
function knownKey(app: string, role: string): string {
  return JSON.stringify([app, role]);
}

/**
 * Code-unit order, not the locale's: SQLite (BINARY) and Redis (a sorted set's members) order
 * text by its UTF-8 bytes, which this order matches (but between characters above U+E000 and
 * those beyond U+FFFF, which no id or channel holds).
 */
function inCodeUnitOrder(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/** Ids in code-unit order: how every backend orders records of equal times. */
function byId(a: { id: string }, b: { id: string }): number {
  return inCodeUnitOrder(a.id, b.id);
}

/** Records oldest first, then by `ref` in code-unit order: listAuditBetween's order on every backend. */
function byTime(a: Pick<AuditRecord, 'at' | 'ref'>, b: Pick<AuditRecord, 'at' | 'ref'>): number {
  return a.at - b.at || inCodeUnitOrder(a.ref, b.ref);
}

/**
 * listSubscriptionsIn's order: by channel (in code-unit order, as SQLite's index holds them),
 * then oldest first (by `createdAt`, then `id`).
 */
export function bySubscriptionChannel(a: Subscription, b: Subscription): number {
  return inCodeUnitOrder(a.channel, b.channel) || a.createdAt - b.createdAt || byId(a, b);
}
