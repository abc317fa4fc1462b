import { z } from 'zod';
import { errorResponse } from './errors.ts';
import { badRequest, detailsOf, isObject, jsonBody, type RequestBody } from './json-body.ts';
import { ok, type SandboxResponse } from './response.ts';
import type { BlockedRecord, ModerationState, ReviewedRecord } from './state.ts';

// The moderation queues on the chat host (live-api-notes.md, "Moderation"): the flagged and the
// blocked messages, a decision on one, and the reviewed list. A decision moves the message to the
// reviewed list, so a second decision on it finds it in neither queue and is answered as an
// unknown message is, 404 `ERR_MESSAGE_ID_NOT_FOUND`: the documents name no other error for it,
// and the service looks the id up in the queue the path names.

/** The examples show pages of 50. */
const DEFAULT_LIMIT = 50;

/**
 * The page size, `limit` (the documents show a page-size parameter without naming it; `limit`
 * is what the rules list takes): a positive integer, else the 400 naming it.
 */
export function pageLimit(
  query: Record<string, string>,
): { ok: true; limit: number } | { ok: false; response: SandboxResponse } {
  const raw = query.limit;
  if (raw === undefined) return { ok: true, limit: DEFAULT_LIMIT };
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1) {
    return { ok: false, response: badRequest('limit', 'The limit must be a positive integer.') };
  }
  return { ok: true, limit };
}

/** A list's answer: newest first, at most `limit`, with `meta.current` as in the examples. */
function page(items: unknown[], limit: number): SandboxResponse {
  const data = items.slice(0, limit);
  return ok({ data, meta: { current: { limit, count: data.length } } });
}

export function listFlagged(state: ModerationState, query: Record<string, string>) {
  const limit = pageLimit(query);
  if (!limit.ok) return limit.response;
  return page(
    [...state.flagged.values()].sort((a, b) => b.sentAt - a.sentAt),
    limit.limit,
  );
}

export function listBlocked(state: ModerationState, query: Record<string, string>) {
  const limit = pageLimit(query);
  if (!limit.ok) return limit.response;
  return page(
    [...state.blocked.values()].sort((a, b) => b.createdAt - a.createdAt),
    limit.limit,
  );
}

/**
 * The reviewed items, latest decision first. A blocked one says when it was blocked as
 * `blockedAt`, a string with a fraction (as documented); neither names the reviewer.
 */
export function listReviewed(state: ModerationState, query: Record<string, string>) {
  const limit = pageLimit(query);
  if (!limit.ok) return limit.response;
  const items = [...state.reviewed].reverse().map(reviewedItem);
  return page(items, limit.limit);
}

function reviewedItem(record: ReviewedRecord): Record<string, unknown> {
  const decided = { status: record.status, reviewed: true, reviewedAt: record.reviewedAt };
  if (record.queue === 'flagged') return { ...record.item, ...decided };
  const { createdAt, ...item } = record.item;
  return {
    ...item,
    blockedAt: `${createdAt}.${String(createdAt % 1000).padStart(3, '0')}`,
    ...decided,
  };
}

export interface Decision {
  /** The message id after one decoding; undefined when the segment cannot be an id. */
  id: string | undefined;
  contentType: string | undefined;
  body: RequestBody;
  now: number;
}

const FlaggedDecisionSchema = z.looseObject({
  status: z.enum(['approved', 'disapproved'], 'The status must be approved or disapproved.'),
});

/** The older form took the status alone: `reviewed` may be left out, but not be false. */
const BlockedDecisionSchema = z.looseObject({
  status: z.enum(['approved', 'rejected'], 'The status must be approved or rejected.'),
  reviewed: z.literal(true, 'reviewed must be true.').optional(),
});

/** The decision's status, or the 400 naming what is wrong with the body. */
function checked<S extends z.ZodType<{ status: string }>>(
  schema: S,
  decision: Decision,
): { ok: true; status: string } | { ok: false; response: SandboxResponse } {
  const body = jsonBody(decision.contentType, decision.body);
  if (!body.ok) return body;
  if (!isObject(body.value)) {
    return { ok: false, response: badRequest('body', 'The request body must be a JSON object.') };
  }
  const parsed = schema.safeParse(body.value);
  if (!parsed.success) {
    const details = detailsOf(parsed.error.issues);
    return { ok: false, response: errorResponse('ERR_BAD_REQUEST', { details }) };
  }
  return { ok: true, status: parsed.data.status };
}

/**
 * `approved` leaves the message visible, `disapproved` hides it; either moves it to the reviewed
 * list. Answered in the form `state.flaggedAnswer` names (both are documented).
 */
export function decideFlagged(state: ModerationState, decision: Decision): SandboxResponse {
  const item = decision.id === undefined ? undefined : state.flagged.get(decision.id);
  if (item === undefined) return errorResponse('ERR_MESSAGE_ID_NOT_FOUND');
  const status = checked(FlaggedDecisionSchema, decision);
  if (!status.ok) return status.response;
  state.flagged.delete(item.id);
  state.reviewed.push({ queue: 'flagged', item, status: status.status, reviewedAt: decision.now });
  const message = `The message ${item.id} has been ${status.status}.`;
  return ok(state.flaggedAnswer === 'data' ? { data: {} } : { success: true, message });
}

/** `approved` delivers the message (for good), `rejected` keeps it blocked; either is reviewed. */
export function decideBlocked(state: ModerationState, decision: Decision): SandboxResponse {
  const item = decision.id === undefined ? undefined : state.blocked.get(decision.id);
  if (item === undefined) return errorResponse('ERR_MESSAGE_ID_NOT_FOUND');
  const status = checked(BlockedDecisionSchema, decision);
  if (!status.ok) return status.response;
  state.blocked.delete(item.message.id);
  const reviewed: BlockedRecord = delivered(item, status.status);
  state.reviewed.push({
    queue: 'blocked',
    item: reviewed,
    status: status.status,
    reviewedAt: decision.now,
  });
  const message = `The message ${item.message.id} has been ${status.status}.`;
  return ok({ data: { success: true, message } });
}

/** An approved blocked message is delivered: its moderation status says so from then on. */
function delivered(item: BlockedRecord, status: string): BlockedRecord {
  if (status !== 'approved') return item;
  const data = { ...item.message.data, moderation: { status: 'approved' } };
  return { ...item, message: { ...item.message, data } };
}

/** A decision the stand-in was sent: which queue, which message, and the body as received. */
export interface ReceivedDecision {
  queue: 'flagged' | 'blocked';
  /** The message id, decoded once (the raw segment when it does not decode). */
  id: string;
  body: unknown;
}

const DECISION_PATH = /^\/v3\/moderation\/(flagged|blocked)-messages\/([^/]+)$/;

/** The decisions (PATCHes) among the requests received, in order, whatever their answer. */
export function decisionsIn(
  requests: readonly { method: string; host: string; path: string; body: unknown }[],
): ReceivedDecision[] {
  return requests.flatMap(({ method, host, path, body }) => {
    const match = method === 'PATCH' && host === 'api' ? DECISION_PATH.exec(path) : null;
    if (match === null) return [];
    const [, queue, raw = ''] = match;
    let id = raw;
    try {
      id = decodeURIComponent(raw);
    } catch {
      // Kept raw: a segment that does not decode names no message.
    }
    return [{ queue: queue === 'flagged' ? 'flagged' : 'blocked', id, body }];
  });
}
