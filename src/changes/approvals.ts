import type { ViewSubmitAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { z } from 'zod';
import {
  type ApprovalReminder,
  type Apps,
  appNameIfMultiple,
  openSigned,
  signedValue,
  tryOpenSigned,
  UNSIGNED_REFUSAL,
  valueWriter,
} from '../apps/apps.ts';
import { currentRequest, msLeft } from '../request-context.ts';
import { messageModal } from '../slack/blocks.ts';
import { slackErrorCode } from '../slack/deliver.ts';
import type { ButtonArgs, SubmitArgs } from '../slack/listener-args.ts';
import { refusedForNow } from '../slack/slack-errors.ts';
import type { ApprovalRequest, Store } from '../store/store.ts';
import {
  type ListedRequest,
  REJECT_BLOCK,
  REJECT_INPUT,
  rejectReasonView,
  reminderMessage,
} from './approval-view.ts';
import {
  announce,
  approveRequest,
  approverRefusal,
  approversOf,
  type Decider,
  decisionClaim,
  expireRequest,
  openRequest,
  takeDecision,
} from './decide.ts';
import { type ChangeDeps, OPEN_CHECK_DEADLINE_MS } from './deps.ts';
import { replyPrivately } from './replies.ts';
import { completeStepOnce, stepCompletion } from './step-completion.ts';
import { reasonOf } from './views.ts';

// The listeners of two pairs of eyes: "Approve" (and "Retry"), "Reject" and the reason it asks
// for, each checked on the server when it comes; the open requests a person may act on; and the
// expiry of requests nobody decided.

const IdValue = z.object({ id: z.string().regex(/^[0-9a-f]{24}$/) });

/** The person who clicked a request's button, on the app and request its signed value names. */
function deciderOf(deps: ChangeDeps, args: ButtonArgs): { decider: Decider; id: string } {
  const { body, client } = args;
  const { app, value } = openSigned(deps.apps, IdValue, args.action.value);
  const tell = (text: string) => replyPrivately(deps, args, text);
  return { id: value.id, decider: { app, userId: body.user.id, client, tell } };
}

/** Publishes the person's Home tab again, when there is one; a failure only logs. */
async function refreshHome(deps: ChangeDeps, userId: string) {
  const { log } = currentRequest();
  await deps.refreshHome?.(userId, log).catch((error: unknown) => {
    log.warn({ err: error }, 'home: not refreshed');
  });
}

/** "Approve" on an open request, "Retry" on one whose sending failed: the same button. */
export function createApproveButton(deps: ChangeDeps) {
  return async (args: ButtonArgs) => {
    await args.ack();
    const { decider, id } = deciderOf(deps, args);
    await approveRequest(deps, decider, id);
    // Clicked on the Home tab: the tab shows the request's new state at once.
    if (args.body.view?.type === 'home') await refreshHome(deps, decider.userId);
  };
}

/** "Reject": asks for the reason in a modal (after the same checks as Approve). */
export function createRejectButton(deps: ChangeDeps) {
  return async (args: ButtonArgs) => {
    await args.ack();
    const { decider, id } = deciderOf(deps, args);
    const found = await openRequest(deps, decider, id, false);
    if ('sentence' in found) return decider.tell(found.sentence);
    // The modal needs the trigger within three seconds of the click.
    const withinMs = msLeft(OPEN_CHECK_DEADLINE_MS, deps.now);
    const refusal = await approverRefusal(decider.app, found.request, decider.userId, { withinMs });
    if (refusal) return decider.tell(refusal);
    await deps.views.open({
      trigger_id: args.body.trigger_id,
      view: rejectReasonView(found.request, signedValue(decider.app, { id })),
    });
  };
}

/** The reason a rejection gives; undefined when it gives none (blank is none). */
export function rejectReasonOf(
  values: ViewSubmitAction['view']['state']['values'],
): string | undefined {
  return reasonOf(values, REJECT_BLOCK, REJECT_INPUT);
}

const REJECT_TITLE = 'Reject the change';

/**
 * The reason submitted: checked again, the request's one decision taken, and only then the
 * request closed as rejected; whoever came second is told, in the modal, what became of it.
 */
export function createRejectSubmission(deps: ChangeDeps) {
  return async ({ ack, view, body, client }: SubmitArgs) => {
    const opened = tryOpenSigned(deps.apps, IdValue, view.private_metadata);
    if (!opened) {
      await ack({ response_action: 'update', view: messageModal(REJECT_TITLE, UNSIGNED_REFUSAL) });
      return;
    }
    const reason = rejectReasonOf(view.state.values);
    if (reason === undefined) {
      await ack({
        response_action: 'errors',
        errors: { [REJECT_BLOCK]: 'Say why, for the requester.' },
      });
      return;
    }
    const { app, value } = opened;
    const userId = body.user.id;
    const decided = await rejectable(deps, { app, client, userId }, value.id);
    if ('sentence' in decided) {
      await ack({ response_action: 'update', view: messageModal(REJECT_TITLE, decided.sentence) });
      return;
    }
    await ack();
    const { log } = currentRequest();
    const rejected = { status: 'rejected' as const, decidedBy: userId, rejectReason: reason };
    await announce(
      deps,
      { client, log },
      { ...decided.request, ...rejected, decidedAt: deps.now() },
    );
    log.info({ request: value.id, app: app.name }, 'approval request rejected');
    await refreshHome(deps, userId);
  };
}

/** The request this person may reject now, its decision taken; else why not. */
async function rejectable(
  deps: ChangeDeps,
  decider: Pick<Decider, 'app' | 'client' | 'userId'>,
  id: string,
): Promise<{ request: ApprovalRequest } | { sentence: string }> {
  const found = await openRequest(deps, decider, id, false);
  if ('sentence' in found) return found;
  const refusal = await approverRefusal(decider.app, found.request, decider.userId);
  if (refusal) return { sentence: refusal };
  return takeDecision(deps, found.request);
}

/**
 * The open requests `userId` may act on (an approver of the request who did not ask: a
 * moderator for a message's decision, else an editor), oldest first, and their own open
 * requests. Each app's check of each kind is asked once.
 */
export async function requestsFor(
  deps: { store: Pick<Store, 'listOpenApprovals'>; apps: Apps; now: () => number },
  userId: string,
  limit: { withinMs?: number } = {},
): Promise<{ waiting: ListedRequest[]; own: ListedRequest[] }> {
  const open = await deps.store.listOpenApprovals();
  const now = deps.now();
  const mayApprove = new Map<string, Promise<boolean>>();
  const waiting: ListedRequest[] = [];
  const own: ListedRequest[] = [];
  for (const request of open) {
    const app = deps.apps.byName(request.app);
    if (!app?.approval || now > request.expiresAt) continue;
    const listed = {
      request,
      appName: appNameIfMultiple(deps.apps, app),
      value: valueWriter(app)({ id: request.id }),
    };
    if (request.requester === userId) {
      own.push(listed);
      continue;
    }
    const key = `${app.name} ${approversOf(request)}`;
    const allowed =
      mayApprove.get(key) ??
      approverRefusal(app, request, userId, limit).then((refusal) => refusal === undefined);
    mayApprove.set(key, allowed);
    if (await allowed) waiting.push(listed);
  }
  return { waiting, own };
}

/**
 * Closes the open requests past their expiry, so the channel shows it on time and the requester
 * is told: once across replicas, and never under someone deciding it. Returns how many.
 */
export async function expireApprovals(
  deps: Pick<ChangeDeps, 'store' | 'apps' | 'deliver' | 'now'>,
  client: WebClient,
  log: Logger,
): Promise<number> {
  let expired = 0;
  for (const request of await deps.store.listOpenApprovals()) {
    if (deps.now() <= request.expiresAt || !deps.apps.byName(request.app)) continue;
    if (!(await expireRequest(deps, { client, log }, request))) continue;
    log.info({ request: request.id, app: request.app }, 'approval request expired');
    expired += 1;
  }
  return expired;
}

/**
 * Completes the Workflow Builder steps whose requests are decided but whose runs Slack never took
 * the end of (a stop between the decision and the completion, or Slack refusing it), and ends
 * those whose change failed, or whose outcome is unknown, once the request expired without a
 * Retry that applied it, and those whose request is open past its expiry with its app no longer
 * configured (expireApprovals leaves those). Each under the step's claim, so that one replica
 * completes it. Returns how many it completed.
 */
export async function completeWaitingSteps(
  deps: Pick<ChangeDeps, 'store' | 'apps' | 'now'>,
  client: WebClient,
  log: Logger,
): Promise<number> {
  let completed = 0;
  for (const request of await deps.store.listUnendedStepApprovals()) {
    const configured = deps.apps.byName(request.app) !== undefined;
    if (!stepCompletion(request, deps.now(), configured)) continue;
    if (await completeSwept(deps, { client, log }, request)) completed += 1;
  }
  return completed;
}

/**
 * One swept request's step completed. A failed or unknown outcome may be under a Retry right
 * now: its decision is taken first, so that the step does not end while the change is sent.
 */
async function completeSwept(
  deps: Pick<ChangeDeps, 'store' | 'apps' | 'now'>,
  announcer: { client: WebClient; log: Logger },
  request: ApprovalRequest,
): Promise<boolean> {
  if (request.status !== 'failed' && request.status !== 'unknown') {
    return completeStepOnce(deps, announcer, request.id);
  }
  const decision = await takeDecision(deps, request);
  if ('sentence' in decision) return false;
  try {
    return await completeStepOnce(deps, announcer, request.id);
  } finally {
    await deps.store.release(decisionClaim(request.id));
  }
}

/** The claim that reminds a request's approvers once, across replicas. */
export const reminderClaim = (id: string) => `reminder:${id}`;

/**
 * How long a reminder's claim is held while its post is under way: a replica that stops mid-post
 * leaves it to the next sweep after this. Once Slack took the post it is held past the expiry.
 */
const REMINDING_SECONDS = 120;

/**
 * Whether `request` is due its one reminder at `now`: open and posted, asked at least the app's
 * reminder time ago, not expired, and not reminded yet. Pure.
 */
export function reminderDue(
  request: ApprovalRequest,
  reminder: ApprovalReminder | undefined,
  now: number,
): reminder is ApprovalReminder {
  return (
    reminder !== undefined &&
    request.status === 'open' &&
    request.ts !== undefined &&
    request.remindedAt === undefined &&
    now >= request.requestedAt + reminder.afterMs &&
    now <= request.expiresAt
  );
}

/**
 * Reminds the approvers of each open request nobody decided after the app's reminder time, once:
 * a reply in the request's thread naming them. Returns how many were reminded.
 */
export async function remindApprovals(
  deps: Pick<ChangeDeps, 'store' | 'apps' | 'now'>,
  client: WebClient,
  log: Logger,
): Promise<number> {
  let reminded = 0;
  for (const request of await deps.store.listOpenApprovals()) {
    const app = deps.apps.byName(request.app);
    const reminder = app?.approval?.reminder;
    if (!app || !reminderDue(request, reminder, deps.now())) continue;
    const appName = appNameIfMultiple(deps.apps, app);
    if (await remindOnce(deps, { client, log }, request, { reminder, appName })) reminded += 1;
  }
  return reminded;
}

/**
 * One request's reminder, under its claim: read again (a request decided meanwhile is not
 * reminded), posted in its thread, then kept as reminded. A post Slack refused lets the claim go,
 * for the next sweep to try again; one Slack took holds it past the expiry, so that it is never
 * posted twice, whether or not `remindedAt` could be stored.
 */
async function remindOnce(
  deps: Pick<ChangeDeps, 'store' | 'now'>,
  { client, log }: { client: WebClient; log: Logger },
  request: ApprovalRequest,
  { reminder, appName }: { reminder: ApprovalReminder; appName: string | undefined },
): Promise<boolean> {
  const claim = reminderClaim(request.id);
  if (!(await deps.store.claim(claim, REMINDING_SECONDS))) return false;
  const current = await deps.store.getApproval(request.id);
  if (!current?.ts || !reminderDue(current, reminder, deps.now())) return false;
  const listed = approversOf(current) === 'moderators' ? reminder.moderators : reminder.approvers;
  // The requester is among the editors, but may not decide their own request.
  const mentions = listed.filter((id) => id !== current.requester);
  try {
    await client.chat.postMessage({
      channel: current.channel,
      thread_ts: current.ts,
      ...reminderMessage(current, mentions, appName),
    });
  } catch (error) {
    // Tried again only when Slack refused it for now: a refusal for good (not in the channel,
    // archived) would be refused every minute, and a post with no answer may have been taken.
    const again = refusedForNow(error);
    log.warn(
      { request: current.id, app: current.app, cause: slackErrorCode(error) },
      again
        ? 'approval reminder not posted; the next sweep tries again'
        : 'approval reminder not posted; not tried again',
    );
    if (again) await deps.store.release(claim);
    else await holdPastExpiry(deps, current, log);
    return false;
  }
  log.info({ request: current.id, app: current.app }, 'approvers reminded');
  // Never throw from here on: what follows the post is never taken for a failure to post.
  await keepReminded(deps, current, log).catch((error: unknown) => {
    log.warn(
      { err: error, request: current.id },
      'approval reminder not kept; it may be sent again',
    );
  });
  return true;
}

/** Holds the reminder's claim past the request's expiry: no replica reminds it again. */
async function holdPastExpiry(
  deps: Pick<ChangeDeps, 'store' | 'now'>,
  request: ApprovalRequest,
  log: Logger,
): Promise<void> {
  const untilExpiry = Math.ceil((request.expiresAt - deps.now()) / 1000);
  if (!(await deps.store.renewClaim(reminderClaim(request.id), untilExpiry + REMINDING_SECONDS))) {
    log.warn({ request: request.id }, 'approval reminder claim ran out; it may be sent again');
  }
}

/**
 * Keeps a posted reminder: its claim held past the request's expiry, then the time stored under
 * the request's decision claim, so that a decision stored meanwhile is not written over by the
 * open request read before it. Should someone be deciding it right now, their record stands
 * without the time; the reminder's claim still keeps it once.
 */
async function keepReminded(
  deps: Pick<ChangeDeps, 'store' | 'now'>,
  request: ApprovalRequest,
  log: Logger,
): Promise<void> {
  await holdPastExpiry(deps, request, log);
  const decision = decisionClaim(request.id);
  if (!(await deps.store.claim(decision, REMINDING_SECONDS))) return;
  try {
    const stored = await deps.store.getApproval(request.id);
    if (stored?.status === 'open') {
      await deps.store.putApproval({ ...stored, remindedAt: deps.now() });
    }
  } finally {
    await deps.store.release(decision);
  }
}
