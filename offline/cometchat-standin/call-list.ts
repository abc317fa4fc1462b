import { errorResponse } from './errors.ts';
import { readPaging } from './paging.ts';
import { ok, type SandboxResponse } from './response.ts';
import type { CallRecord, SandboxState } from './state.ts';

// GET /v3/calls: the calls that match the documented filters, newest first, a page at a time.
// How the answer is shaped follows `state.callList`, because the live service has answered
// both ways: with or without `per_page`, and (a version that ignores them) without paging.

/** The fields of a call record the filters read; records are served as they are. */
interface Fields {
  sessionId: string;
  status?: string;
  type?: string;
  mode?: string;
  receiverType?: string;
  initiator?: string;
  receiver?: string;
  initiatedAt?: number;
  startedAt?: number;
  endedAt?: number;
  hasRecording?: boolean;
  hasTranscription?: boolean;
  recordings?: unknown[];
  transcriptions?: unknown[];
  participants?: { uid?: string }[];
  totalParticipants?: number;
}

type Filter = (call: Fields) => boolean;

const TEXT_FILTERS = ['status', 'type', 'mode', 'receiverType'] as const;

/** Each query parameter as a filter, or the problems with them (for a 400 with details). */
function filtersOf(query: Record<string, string>): {
  filters: Filter[];
  details: Record<string, string[]>;
} {
  const filters: Filter[] = [];
  const details: Record<string, string[]> = {};
  for (const key of TEXT_FILTERS) {
    const value = query[key];
    if (value !== undefined) filters.push((call) => call[key] === value);
  }
  if (query.uid !== undefined) {
    const uid = query.uid;
    filters.push(
      (call) =>
        call.initiator === uid ||
        call.receiver === uid ||
        (call.participants ?? []).some((p) => p.uid === uid),
    );
  }
  for (const key of ['hasRecording', 'hasTranscription'] as const) {
    const value = query[key];
    if (value === undefined) continue;
    if (value !== 'true' && value !== 'false') {
      details[key] = [`The ${key} must be true or false.`];
      continue;
    }
    const wanted = value === 'true';
    filters.push((call) => has(call, key) === wanted);
  }
  for (const key of ['startedAt', 'endedAt', 'participantsCount'] as const) {
    const value = query[key];
    if (value === undefined) continue;
    if (!/^\d{1,12}$/.test(value)) {
      details[key] = [
        `The ${key} must be a whole number${key === 'participantsCount' ? '' : ' of Unix seconds'}.`,
      ];
      continue;
    }
    const number = Number(value);
    if (key === 'startedAt')
      filters.push((call) => (call.startedAt ?? call.initiatedAt ?? 0) >= number);
    if (key === 'endedAt')
      filters.push((call) => call.endedAt !== undefined && call.endedAt <= number);
    if (key === 'participantsCount') {
      filters.push((call) => (call.totalParticipants ?? call.participants?.length ?? 0) === number);
    }
  }
  return { filters, details };
}

function has(call: Fields, key: 'hasRecording' | 'hasTranscription'): boolean {
  const list = key === 'hasRecording' ? call.recordings : call.transcriptions;
  return call[key] ?? (list ?? []).length > 0;
}

const when = (call: Fields) => call.startedAt ?? call.initiatedAt ?? 0;

export function listCalls(state: SandboxState, query: Record<string, string>): SandboxResponse {
  const { filters, details } = filtersOf(query);
  const paging = readPaging(query, details);
  if (paging === undefined || Object.keys(details).length > 0) {
    return errorResponse('ERR_BAD_REQUEST', { details });
  }
  const { page, perPage } = paging;
  const matching = [...state.calls.values()]
    .map((call) => call.record)
    .filter((record) => filters.every((keep) => keep(record as CallRecord & Fields)))
    .sort((a, b) => when(b as Fields) - when(a as Fields));
  const paged = state.callList.paging;
  const size = paged ? perPage : Math.max(1, matching.length);
  const current = paged ? page : 1;
  // The records themselves, not copies: the server serialises an answer the moment it is made,
  // so nothing holds them, and cloning ten calls cost the bench's process more CPU per search
  // than the whole rest of the sandbox's answer (BENCHMARKS.md in git history, "fifth pass").
  const data = matching.slice((current - 1) * size, current * size);
  return ok({
    data,
    meta: {
      pagination: {
        total: matching.length,
        count: data.length,
        ...(state.callList.perPage ? { per_page: size } : {}),
        current_page: current,
        total_pages: Math.max(1, Math.ceil(matching.length / size)),
      },
    },
  });
}
