import { attemptOf, editRefusal } from '../access/edit-refusal.ts';
import type { CometChatApp } from '../apps/apps.ts';
import { currentRequest } from '../request-context.ts';
import type { AuditRecord, AuditStep, Store } from '../store/store.ts';
import { type Change, changePayload, setsPermissions } from './change.ts';
import { ContainmentFailed } from './kinds/containment.ts';
import {
  type ChangeClient,
  type Kind,
  kindOf,
  type RecordFacts,
  type Sent,
} from './kinds/index.ts';
import { RuleAnsweredOtherwise } from './kinds/rule.ts';
import {
  type Attempt,
  type AuditTrail,
  auditRecord,
  failureFacts,
  mayHaveApplied,
  pendingRecord,
} from './record.ts';

// Applying a change, whatever its kind, in one line of steps: the person authorised at the
// moment it is sent; the change claimed once across replicas (however often its review is
// submitted); its target claimed, so that one change of a user or a role runs at a time; checked
// against what CometChat (or the store) has now; its pending record stored before anything is
// sent; sent; audited, applied or not. A store that fails before the change is sent means
// nothing is sent; once it is applied, no store failure hides it.

/** How long a change's claim is held: long past any retry of the same submission. */
const CLAIM_TTL_SECONDS = 24 * 60 * 60;

/**
 * How long a target's claim may be held: the check, the send within the client's time budget,
 * and the audit take seconds; a replica that stops holding it frees the target soon.
 */
const TARGET_CLAIM_SECONDS = 120;

/**
 * How often a long send (a containment's deletions) renews its target claim and its pending
 * record: well within the claim's life and the pending-record sweep's wait (twice the request
 * budget), so that neither takes a live attempt for one a stopped replica left behind.
 */
const KEEP_ALIVE_MS = 5_000;

/** Said when the apply-once claim could not be taken: the store is down, nothing was sent. */
export const STORE_DOWN =
  "Nothing was sent: the app's store is not answering, and the store is what makes a change apply exactly once. Try again in a moment; tell whoever runs the app if it keeps happening.";

/** Said when the pending record could not be stored: the change was never sent. */
export const NOT_SENT =
  "Nothing was sent: the app could not store this change's audit record before sending it (its store did not answer). Try again in a moment; tell whoever runs the app if it keeps happening.";

export interface ApplyDeps {
  store: Pick<
    Store,
    | 'claim'
    | 'release'
    | 'setKnownPermissions'
    | 'putPending'
    | 'renewClaim'
    | 'getKnownPermissions'
    | 'setSeenRevision'
  >;
  audit: AuditTrail;
  now: () => number;
}

/** A change to apply: in which app, by whom, and for an approved request, whose request. */
export interface Applying {
  /** The app the review was signed for: its editors decide, its client sends. */
  app: Pick<CometChatApp, 'name' | 'access'> & { cometchat: ChangeClient };
  change: Change;
  /** Who sends it: the editor, or for an approved request the approver. */
  userId: string;
  teamId: string;
  approval?: Attempt['approval'];
  /** Sent again after an attempt whose outcome was not known: a target that has it took it. */
  afterUnknown?: boolean | undefined;
}

export type ApplyOutcome =
  /** The person may not edit (checked now, on the server): nothing was sent. */
  | { kind: 'refused'; sentence: string }
  /** The same review was already submitted (a double click, a replay): not sent again. */
  | { kind: 'repeated' }
  /** The store did not answer, so nothing was sent; `sentence` says which step, a retry is let through. */
  | { kind: 'not-sent'; error: unknown; sentence: string }
  /**
   * CometChat said it did not apply it: recorded, and a new attempt is let through. `steps`: for
   * a change of several steps, what each did before it failed.
   */
  | { kind: 'failed'; error: unknown; audited: boolean; steps?: AuditStep[] | undefined }
  /** CometChat may or may not have applied it: recorded as unknown, a new attempt let through. */
  | { kind: 'unknown'; error: unknown; audited: boolean; steps?: AuditStep[] | undefined }
  /**
   * Its target is no longer as the review showed it, or another change of it is under way:
   * nothing was sent. `why`: what changed, where the kind can say exactly.
   */
  | { kind: 'stale'; sentence: string; why?: string | undefined }
  /** Sent again after an unknown outcome, and CometChat has it already: the earlier one took. */
  | { kind: 'taken' }
  | { kind: 'applied'; update: Sent; audited: boolean };

/** Applies the change once, as its review showed it, and audits the attempt. */
export async function applyChange(deps: ApplyDeps, applying: Applying): Promise<ApplyOutcome> {
  const { app, change } = applying;
  const { log } = currentRequest();
  const refusal = await editRefusal(app.access, applying.userId, log, attemptOf(change, 'confirm'));
  if (refusal) return { kind: 'refused', sentence: refusal };
  const kind = kindOf(change);
  const claims = await claimChange(deps, applying, kind);
  if ('kind' in claims) return claims;
  let outcome: ApplyOutcome | undefined;
  try {
    outcome = await checkedSend(deps, applying, kind, claims.target);
    return outcome;
  } finally {
    await claims.release(outcome);
  }
}

/**
 * Takes the change's claim (once, across replicas) and its target's (one change of a user or a
 * role at a time); answers how to let them go, or why nothing is sent.
 */
async function claimChange(
  deps: ApplyDeps,
  { app, change }: Applying,
  kind: Kind,
): Promise<
  ApplyOutcome | { target: string; release(outcome: ApplyOutcome | undefined): Promise<void> }
> {
  const { log } = currentRequest();
  const target = `target:${app.name}:${kind.target}`;
  const release = (id: string) =>
    deps.store.release(id).catch((error: unknown) => {
      log.error({ err: error, claim: id }, 'claim could not be released');
    });
  try {
    if (!(await deps.store.claim(change.id, CLAIM_TTL_SECONDS))) {
      log.warn({ app: app.name, role: change.role, change: change.id }, 'repeated change ignored');
      return { kind: 'repeated' };
    }
    if (!(await deps.store.claim(target, TARGET_CLAIM_SECONDS))) {
      log.warn({ change: change.id, target }, 'another change of the target is under way');
      await release(change.id);
      return { kind: 'stale', sentence: kind.outOfDate };
    }
  } catch (error) {
    log.error({ err: error, change: change.id }, 'apply-once claim not taken; nothing sent');
    await release(change.id);
    return { kind: 'not-sent', error, sentence: STORE_DOWN };
  }
  return {
    target,
    async release(outcome) {
      await release(target);
      // Once it took, the change stays claimed: the same review is never sent again.
      if (outcome?.kind !== 'applied' && outcome?.kind !== 'taken') await release(change.id);
    },
  };
}

/** Checked against what its target has now, its pending record stored, sent, and audited. */
async function checkedSend(
  deps: ApplyDeps,
  applying: Applying,
  kind: Kind,
  target: string,
): Promise<ApplyOutcome> {
  const { app, change } = applying;
  const { ref, log } = currentRequest();
  const found = await kind.sinceReview({ store: deps.store, app });
  if (found.changed) {
    log.warn({ change: change.id, target: kind.target }, 'changed since the review');
    if (applying.afterUnknown && found.has) return { kind: 'taken' };
    return { kind: 'stale', sentence: found.why ?? kind.outOfDate, why: found.why };
  }
  const facts = await kind.recordFacts(app.cometchat, { store: deps.store, app });
  const attempt: Attempt = { ...applying, app: app.name };
  const made = () => ({ ref, at: deps.now(), facts });
  try {
    await deps.store.putPending(pendingRecord(attempt, made()));
  } catch (error) {
    log.error({ err: error, change: change.id }, 'pending record not stored; nothing sent');
    return { kind: 'not-sent', error, sentence: NOT_SENT };
  }
  let update: Sent;
  try {
    const pending = () => pendingRecord(attempt, made());
    update = await kind.send(app.cometchat, keepAlive(deps, target, pending));
  } catch (thrown) {
    // A containment whose account step failed: its other steps' outcomes are the record's too.
    const steps = thrown instanceof ContainmentFailed ? thrown.steps : undefined;
    const error = thrown instanceof ContainmentFailed ? thrown.cause : thrown;
    const outcome = mayHaveApplied(error) ? 'unknown' : 'failed';
    const record = auditRecord(attempt, made(), outcome, { ...failureFacts(error), steps });
    // A rule answered otherwise may have been replaced: its revision is this app's all the same.
    const revision = error instanceof RuleAnsweredOtherwise ? error.revision : undefined;
    const [{ stored }] = await Promise.all([
      deps.audit.record(record, log),
      rememberRevision(deps, attempt, { results: {}, revision }, made()),
    ]);
    return { kind: outcome, error, audited: stored, steps };
  }
  const audited = await recordApplied(deps, { attempt, update, made: made(), facts });
  log.info(
    {
      app: app.name,
      role: change.role,
      // `uid`: a CometChat user. `user` is the Slack user the request logger carries already.
      uid: 'uid' in change ? change.uid : undefined,
      // A moderation decision's message (its id only: a text is never logged).
      messageId: change.kind === 'moderation' ? change.messageId : undefined,
      keys: Object.keys(changePayload(change.changes)),
      change: change.id,
      promotedFrom: change.promotedFrom?.ref,
    },
    kind.logged,
  );
  return { kind: 'applied', update, audited };
}

/** What a long send calls between its requests (see KEEP_ALIVE_MS); its failures are logged. */
function keepAlive(deps: ApplyDeps, target: string, pending: () => AuditRecord) {
  let last = deps.now();
  return async () => {
    if (deps.now() - last < KEEP_ALIVE_MS) return;
    last = deps.now();
    const [held] = await Promise.all([
      deps.store.renewClaim(target, TARGET_CLAIM_SECONDS),
      deps.store.putPending(pending()),
    ]).catch((error: unknown) => {
      currentRequest().log.error({ err: error, target }, 'a long change could not be kept alive');
      return [true];
    });
    if (!held) currentRequest().log.warn({ target }, "a long change's target claim had expired");
  };
}

/**
 * An applied change, audited, and for a role its map remembered (the editor's next "before"),
 * together: once it is applied, no store failure hides it. Whether the record was stored.
 */
async function recordApplied(
  deps: ApplyDeps,
  input: {
    attempt: Attempt;
    update: Sent;
    made: { ref: string; at: number };
    facts: RecordFacts;
  },
): Promise<boolean> {
  const { attempt, update, made } = input;
  const { log } = currentRequest();
  const messages = Object.entries(update.results)
    .map(([key, r]) => `${key}: ${r.message}`)
    .join('; ');
  const record = auditRecord(attempt, { ...made, facts: input.facts }, 'applied', {
    serviceMessage: messages || undefined,
    ...(update.steps ? { steps: update.steps } : {}),
  });
  const [, , audited] = await Promise.all([
    rememberPermissions(deps, attempt, update, made),
    rememberRevision(deps, attempt, update, made),
    deps.audit.record(record, log),
  ]);
  return audited.stored;
}

/**
 * A rule's revision as the answer gave it: the rules' daily check then knows this revision was
 * made by this app, and does not report it as made elsewhere.
 */
async function rememberRevision(
  deps: ApplyDeps,
  { app, change }: Attempt,
  update: Sent,
  made: { at: number },
) {
  if (change.kind !== 'rule' || update.revision === undefined) return;
  const seen = { app, rule: change.role, revisionId: update.revision, seenAt: made.at };
  await deps.store.setSeenRevision(seen).catch((error: unknown) => {
    currentRequest().log.error({ err: error, rule: change.role }, 'rule revision not stored');
  });
}

/**
 * A role's map as the answer gave it, with the change's reference (its audit record's), so that
 * what the map says can be traced. A role created with none, or deleted, starts from the
 * defaults: an empty map says so, so that an earlier role of the same id is never shown as this.
 */
async function rememberPermissions(
  deps: ApplyDeps,
  { app, change }: Attempt,
  update: Sent,
  made: { ref: string; at: number },
) {
  if (!setsPermissions(change) && change.kind !== 'role') return;
  const fresh = change.kind === 'role' && change.action !== 'update';
  const permissions = update.permissions ?? (fresh ? {} : undefined);
  if (!permissions) return;
  const known = { app, role: change.role, permissions, seenAt: made.at, ref: made.ref };
  await deps.store.setKnownPermissions(known).catch((error: unknown) => {
    currentRequest().log.error(
      { err: error, role: change.role },
      'last known permissions not stored',
    );
  });
}
