import { type CallFields, callStart, participantMinutes, readCall } from './call-fields.ts';
import { errorResponse } from './errors.ts';
import { ok, type SandboxResponse } from './response.ts';
import type { SandboxState } from './state.ts';

// GET /v3/stats (live-api-notes.md, "Usage"): the app's usage over a time range, computed from
// the calls that started in it. `fromDate` and `toDate` are both required; the documentation
// says Unix time and its example is in milliseconds, so either is accepted (12 digits and more
// are milliseconds), and `time_range` echoes them as sent.

/** Below this a time is in seconds (year 5138); at or above it, in milliseconds (1973). */
const MILLISECONDS_FROM = 100_000_000_000;

function readTime(
  query: Record<string, string>,
  key: 'fromDate' | 'toDate',
  details: Record<string, string[]>,
): { sent: number; ms: number } | undefined {
  const value = query[key];
  if (value === undefined || value === '') {
    details[key] = [`The ${key} field is required.`];
    return undefined;
  }
  if (!/^\d{1,13}$/.test(value)) {
    details[key] = [`The ${key} must be Unix time in seconds or milliseconds.`];
    return undefined;
  }
  const sent = Number(value);
  return { sent, ms: sent >= MILLISECONDS_FROM ? sent : sent * 1000 };
}

const round = (minutes: number) => Math.round(minutes * 100) / 100;

/** The most participants in calls at the same moment; someone leaving as another joins is not both. */
function peakConcurrent(calls: CallFields[], now: number): number {
  const changes: [at: number, delta: number][] = [];
  for (const call of calls) {
    for (const p of call.participants) {
      if (p.joinedAt === undefined) continue;
      changes.push([p.joinedAt, 1], [p.leftAt ?? call.endedAt ?? now, -1]);
    }
  }
  changes.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let current = 0;
  let peak = 0;
  for (const [, delta] of changes) {
    current += delta;
    peak = Math.max(peak, current);
  }
  return peak;
}

export function usageStats(
  state: SandboxState,
  query: Record<string, string>,
  now: number,
): SandboxResponse {
  const details: Record<string, string[]> = {};
  const from = readTime(query, 'fromDate', details);
  const to = readTime(query, 'toDate', details);
  if (from !== undefined && to !== undefined && to.ms < from.ms) {
    details.toDate = ['The toDate must not be before the fromDate.'];
  }
  if (from === undefined || to === undefined || Object.keys(details).length > 0) {
    return errorResponse('ERR_BAD_REQUEST', { details });
  }

  const calls = [...state.calls.values()]
    .map((seeded) => readCall(seeded.record))
    .filter((call) => {
      const start = callStart(call);
      return start !== undefined && start * 1000 >= from.ms && start * 1000 <= to.ms;
    });
  let audio = 0;
  let video = 0;
  let recorded = 0;
  const users = new Set<string>();
  for (const call of calls) {
    for (const p of call.participants) {
      if (p.uid !== undefined) users.add(p.uid);
      if (call.type === 'audio') audio += participantMinutes(p);
      if (call.type === 'video') video += participantMinutes(p);
    }
    for (const recording of call.recordings) recorded += recording.duration;
  }
  return ok({
    data: {
      metrics: {
        audio_minutes: round(audio),
        video_minutes: round(video),
        recorded_minutes: round(recorded),
        active_users: users.size,
        concurrent_users: peakConcurrent(calls, now),
      },
      time_range: { fromDate: from.sent, toDate: to.sent },
    },
  });
}
