import { generatePresenterCall } from '../offline/cometchat-standin/presenter-call.ts';
import { toCall, toCallPage } from '../src/cometchat/model.ts';
import {
  CallListResponseSchema,
  CallResponseSchema,
  RoleListResponseSchema,
} from '../src/cometchat/schemas.ts';
import { callListMessage } from '../src/features/calls/call-search-view.ts';
import { callMessage } from '../src/features/calls/call-view.ts';
import { roleListMessage } from '../src/features/roles/role-list-view.ts';
import { percentile } from './stats.ts';

// Block Kit rendering on its own: the pure view functions, timed one call at a time, on inputs
// that went through the same parsing as a live answer (so they have the shapes the app sees).

export interface RenderRound {
  p50Ms: number;
  p99Ms: number;
  /** The rendered message serialised, as it goes on the wire. */
  bytes: number;
}

export interface RenderFigures {
  call1000: RenderRound[];
  roles25: RenderRound[];
  calls100: RenderRound[];
}

const WARM_UP = 500;

function timeRounds(render: () => unknown, rounds: number, iterations: number): RenderRound[] {
  let bytes = JSON.stringify(render()).length;
  for (let i = 0; i < WARM_UP; i += 1) render();
  const out: RenderRound[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const times: number[] = [];
    for (let i = 0; i < iterations; i += 1) {
      const started = performance.now();
      const message = render();
      times.push(performance.now() - started);
      if (i === 0) bytes = JSON.stringify(message).length;
    }
    out.push({ p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), bytes });
  }
  return out;
}

/** A call with `participants` participants, parsed like a response from the call API. */
export function bigCall(participants: number) {
  const record = generatePresenterCall('v1.us.sandbox-app.bench-1000', participants);
  const parsed = CallResponseSchema.parse({ data: record });
  const data = Array.isArray(parsed.data) ? parsed.data[0] : parsed.data;
  if (!data) throw new Error('bench: the generated call did not parse');
  return toCall(data);
}

/** One page of `count` roles with every optional field filled, parsed like a live answer. */
export function rolePage(count: number) {
  const roles = Array.from({ length: count }, (_, i) => ({
    role: `role-${String(i + 1).padStart(2, '0')}`,
    name: `Role number ${i + 1} <with> & marks`,
    description: `Role ${i + 1}: may list users, send messages to groups and moderate the public channels of region ${i % 3}.`,
    settings: { listUsers: 'all', sendMessagesTo: 'friends', mute: i % 2 === 0 },
    metadata: { team: `team-${i % 4}`, escalation: '#cometchat-ops', level: i },
    createdAt: 1_689_000_000 + i * 60,
    updatedAt: 1_698_765_432 + i * 60,
  }));
  const body = RoleListResponseSchema.parse({
    data: roles,
    meta: {
      pagination: { total: count, count, per_page: count, current_page: 1, total_pages: 1 },
    },
  });
  return { roles: body.data, pagination: body.meta.pagination };
}

/**
 * A search result of `count` calls of `participants` participants each, parsed like a list
 * answer that ignored the page size (so the whole list reaches the view function).
 */
export function callListPage(count: number, participants: number) {
  const records = Array.from({ length: count }, (_, i) =>
    generatePresenterCall(`v1.us.sandbox-app.bench-list-${i}`, participants),
  );
  const body = CallListResponseSchema.parse({
    data: records,
    meta: { pagination: { total: count, count, current_page: 1, total_pages: 1 } },
  });
  return toCallPage(body, { page: 1, perPage: count });
}

export function measureRendering(rounds: number, iterations: number): RenderFigures {
  const call = bigCall(1000);
  if (call.participants.length !== 1000) throw new Error('bench: expected 1,000 participants');
  const page = rolePage(25);
  const list = callListPage(100, 300);
  if (list.calls.length !== 100) throw new Error('bench: expected a list of 100 calls');
  const search = { uid: 'cometchat-uid-2', status: 'ended', since: 1_763_000_000 };
  return {
    call1000: timeRounds(() => callMessage(call), rounds, iterations),
    roles25: timeRounds(() => roleListMessage(page), rounds, iterations),
    calls100: timeRounds(() => callListMessage(list, search), rounds, iterations),
  };
}
