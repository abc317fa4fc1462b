import { isRecord } from './is-record.ts';

// What a driver in another process needs of the stand-in (remote.ts): Slack hands a payload's
// response_url and trigger_id to the app, and the records of what the app sent are read here.
// Served under /standin/, a path Slack's API never uses, only when the stand-in is started with
// `controlRoutes` (offline/stack/serve.ts).

/** The ids a driver elsewhere made for a payload, issued here before the app can use them. */
export interface IssuedIds {
  responseUrlIds: string[];
  triggerIds: string[];
}

/** The records a driver elsewhere reads, from the positions it has already seen. */
export interface RecordsFrom {
  calls: number;
  responses: number;
}

export interface ControlRoutes {
  issue(ids: IssuedIds): void;
  records(from: RecordsFrom): Record<string, unknown>;
  applyViewResponse(viewId: string, response: unknown): unknown;
}

export type ControlAnswer = { status: number; body: Record<string, unknown> };

/** Ids of the stand-in's own shapes (ids.ts): a response_url's is a path segment of its url. */
const RESPONSE_URL_ID = /^[\w-]{1,200}$/;
const TRIGGER_ID = /^[\w.-]{1,200}$/;

function idList(value: unknown, shape: RegExp): string[] | undefined {
  if (value === undefined) return [];
  return Array.isArray(value) && value.every((id) => typeof id === 'string' && shape.test(id))
    ? value
    : undefined;
}

/** A position in a record, as a query gives it; absent means "from the end" (only the counts). */
function position(value: string | null): number | undefined {
  if (value === null) return Number.POSITIVE_INFINITY;
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/**
 * One request to /standin/: `POST issue` `{ responseUrlIds, triggerIds }`, `GET records?calls=N
 * &responses=M`, `POST view-response` `{ viewId, response }`. Undefined for a path it does not
 * serve.
 */
export function answerControl(
  route: string,
  method: string | undefined,
  query: URLSearchParams,
  body: unknown,
  routes: ControlRoutes,
): ControlAnswer | undefined {
  const refuse = (error: string): ControlAnswer => ({ status: 400, body: { ok: false, error } });
  if (route === 'records' && method === 'GET') {
    const calls = position(query.get('calls'));
    const responses = position(query.get('responses'));
    if (calls === undefined || responses === undefined) return refuse('invalid_position');
    return { status: 200, body: { ok: true, ...routes.records({ calls, responses }) } };
  }
  if (route === 'issue' && method === 'POST') {
    const responseUrlIds = idList(isRecord(body) ? body.responseUrlIds : [], RESPONSE_URL_ID);
    const triggerIds = idList(isRecord(body) ? body.triggerIds : [], TRIGGER_ID);
    if (!isRecord(body) || !responseUrlIds || !triggerIds) return refuse('invalid_ids');
    routes.issue({ responseUrlIds, triggerIds });
    return { status: 200, body: { ok: true } };
  }
  if (route === 'view-response' && method === 'POST') {
    if (!isRecord(body) || typeof body.viewId !== 'string') return refuse('invalid_view_id');
    const view = routes.applyViewResponse(body.viewId, body.response);
    return { status: 200, body: { ok: true, ...(view === undefined ? {} : { view }) } };
  }
  return undefined;
}
