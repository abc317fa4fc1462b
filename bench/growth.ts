import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { SlashCommand } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import pino from 'pino';
import type { Access } from '../src/access/access.ts';
import { createApps } from '../src/apps/apps.ts';
import type { CometChatClient } from '../src/cometchat/client.ts';
import type { RolePage } from '../src/cometchat/model.ts';
import { homeAlerts } from '../src/features/alerts/home-alerts.ts';
import { EXPORT_PAGE_SIZE } from '../src/features/audit/audit-csv.ts';
import { createAuditExport } from '../src/features/audit/audit-export.ts';
import { AUDIT_PER_PAGE } from '../src/features/audit/audit-view.ts';
import type { AppDeps, ChannelAlerts } from '../src/features/deps.ts';
import { type CommandContext, Refusal } from '../src/features/feature.ts';
import { roles } from '../src/features/roles/index.ts';
import { ROLES_PER_PAGE } from '../src/features/roles/role-list-view.ts';
import { postFileToUploadUrl } from '../src/slack/file-upload.ts';
import { createRedisStore } from '../src/store/redis-store.ts';
import { createSqliteStore } from '../src/store/sqlite-store.ts';
import type { ApprovalRequest, AuditRecord, Store, Subscription } from '../src/store/store.ts';
import { onPath, REDIS_INSTALL_HINT, startRedis } from './redis.ts';
import { type Budget, budgetLines, kib, machine, ms, ratio, table } from './report.ts';
import { median } from './stats.ts';

// `npm run bench:growth`, and a phase of `npm run bench` (measureGrowth): what the store reads
// behind `/cometchat audit`, the Home tab and `/cometchat roles` cost with a large store against
// a small one, on SQLite and on Redis (when redis-server is on PATH). Each figure is the median
// of many calls after a warm-up, the two stores' calls interleaved, so that a ratio is read, not
// a time; the budget is the large store's cost at most twice the small one's. The same reads,
// on smaller stores, are the CI smoke (test/bench/growth-smoke.test.ts). Then
// `/cometchat audit export` of one app's whole trail on each store: its peak JS heap above its
// start on the large store (at most four times the heap of one page of records held: a trail
// held whole is as many pages as it has) and its time per record (at most twice the small's).

/** A store's size: audit records (decided approvals and known maps grow with them) and subscriptions. */
export interface GrowthSize {
  records: number;
  subscriptions: number;
}

const APPS = ['default', 'staging', 'eu'];
// Three roles, so that the small store too has a full page of a role in an app.
const ROLES = ['moderator', 'member', 'guest'];
/**
 * The person whose Home is drawn is in PERSON_CHANNELS channels (one page of Slack's), of which
 * the first SUBSCRIBED have one subscription each in every store; a larger store's other
 * subscriptions are in channels they are not in. What their Home shows is the same.
 */
const PERSON_CHANNELS = 200;
const SUBSCRIBED = 10;
/** Open approval requests, in every store; a larger store has more decided ones. */
const OPEN_APPROVALS = 3;

const channelId = (n: number) => `C${String(n).padStart(6, '0')}`;

function record(i: number): AuditRecord {
  return {
    ref: `ref-${String(i).padStart(7, '0')}`,
    at: 1_700_000_000_000 + i * 1_000,
    app: APPS[i % APPS.length] ?? 'default',
    teamId: 'T1',
    userId: `U${i % 50}`,
    role: ROLES[Math.floor(i / APPS.length) % ROLES.length] ?? 'member',
    changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
    beforeSource: 'last-update',
    outcome: 'applied',
  };
}

function subscription(i: number): Subscription {
  return {
    id: `sub-${i}`,
    app: APPS[i % APPS.length] ?? 'default',
    // Past the person's channels (C000000 to C000199): C000200 to C000599.
    channel: channelId(i < SUBSCRIBED ? i : PERSON_CHANNELS + (i % 400)),
    kind: 'calls',
    filters: ['status:unanswered'],
    createdBy: 'U0OPERATOR',
    createdAt: 1_700_000_000_000 + i,
  };
}

function approval(i: number, status: ApprovalRequest['status']): ApprovalRequest {
  return {
    id: `approval-${i}`,
    app: APPS[i % APPS.length] ?? 'default',
    role: ROLES[i % ROLES.length] ?? 'member',
    changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
    teamId: 'T1',
    requester: `U${i % 50}`,
    requestedAt: 1_700_000_000_000 + i * 1_000,
    expiresAt: 1_700_000_000_000 + i * 1_000 + 86_400_000,
    channel: 'C0APPROVALS',
    status,
  };
}

/** The roles known maps are kept of, per app: the three above, and one more per 100 records. */
const knownRoles = (size: GrowthSize) =>
  Array.from({ length: Math.max(ROLES.length, Math.floor(size.records / 100)) }, (_, i) =>
    i < ROLES.length ? (ROLES[i] ?? 'member') : `role-${i}`,
  );

/** Fills `store`: the records, one decided approval per 20 of them, known maps, subscriptions. */
export async function fillStore(store: Store, size: GrowthSize): Promise<void> {
  // Writes go out in batches: pipelined to Redis, while SQLite takes them one after another.
  const inBatches = async (count: number, write: (i: number) => Promise<void>) => {
    for (let i = 0; i < count; i += 500) {
      await Promise.all(Array.from({ length: Math.min(500, count - i) }, (_, j) => write(i + j)));
    }
  };
  await inBatches(size.records, (i) => store.appendAudit(record(i)));
  const decided = Math.floor(size.records / 20);
  await inBatches(decided + OPEN_APPROVALS, (i) =>
    store.putApproval(approval(i, i < decided ? 'applied' : 'open')),
  );
  const known = knownRoles(size);
  await inBatches(known.length * APPS.length, (i) =>
    store.setKnownPermissions({
      app: APPS[i % APPS.length] ?? 'default',
      role: known[Math.floor(i / APPS.length)] ?? 'member',
      permissions: { sendMessage: 'deny' },
      seenAt: 1_700_000_000_000,
    }),
  );
  await inBatches(size.subscriptions, (i) => store.putSubscription(subscription(i)));
}

const silent = pino({ level: 'silent' });

/** A store, and the Home's alerts part and the role list made over it, Slack and CometChat faked. */
export interface GrowthSubject {
  store: Store;
  /** The Home's "Alerts in your channels" for `userId`, each person's channels cached apart. */
  alerts(userId: string): Promise<ChannelAlerts>;
  /** The same for a person not seen before: their channels are not cached yet. */
  alertsOfSomeoneNew(): Promise<ChannelAlerts>;
  /** `/cometchat roles`, as its subcommand runs. */
  roleList(): Promise<void>;
  /** How many times the role list has touched the store so far. */
  roleListStoreReads(): number;
}

/** users.conversations, in-process: PERSON_CHANNELS channels, whoever asks. */
const slack = {
  users: {
    conversations: async () => ({
      ok: true,
      channels: Array.from({ length: PERSON_CHANNELS }, (_, i) => ({ id: channelId(i) })),
      response_metadata: { next_cursor: '' },
    }),
  },
} as unknown as WebClient;

/** CometChat, in-process: a page of roles, and a count of each role's holders. */
const cometchat = {
  listRoles: async (): Promise<RolePage> => ({
    roles: Array.from({ length: ROLES_PER_PAGE }, (_, i) => ({
      role: `role-${i}`,
      name: `Role ${i}`,
      description: 'A role of the bench',
    })),
    pagination: {
      total: 25,
      count: ROLES_PER_PAGE,
      per_page: ROLES_PER_PAGE,
      current_page: 1,
      total_pages: 3,
    },
  }),
  countUsersWithRole: async () => 7,
} as unknown as CometChatClient;

const apps = createApps(
  APPS.map((name) => ({
    name,
    appId: `${name}-id`,
    region: 'us',
    apiKey: `${name}-key`,
    cometchat,
    access: {} as Access,
  })),
);

export function growthSubject(store: Store): GrowthSubject {
  const alerts = homeAlerts({ apps, store, lookupClient: slack });
  let people = 0;
  // Every property of the store the role list reaches for is counted: it should reach for none.
  let storeReads = 0;
  const watched = new Proxy(store, {
    get(target, key, receiver) {
      storeReads += 1;
      return Reflect.get(target, key, receiver);
    },
  });
  const command = roles.subcommands.find((s) => s.names[0] === 'roles')?.read([]);
  if (command === undefined || command instanceof Refusal) throw new Error('no roles command');
  const [app] = apps.all;
  if (!app) throw new Error('no app');
  // What the router gives a subcommand; the role list uses the apps and, were it to, the store.
  const context: CommandContext = {
    body: {} as SlashCommand,
    respond: async () => {},
    app,
    deps: { apps, store: watched, budgetSeconds: 8, secrets: [] } as unknown as AppDeps,
  };
  return {
    store,
    alerts: (userId) => alerts(userId, silent),
    alertsOfSomeoneNew: () => {
      people += 1;
      return alerts(`U0NEW${people}`, silent);
    },
    roleList: () => command.run(context),
    roleListStoreReads: () => storeReads,
  };
}

/** One read measured: what the person does, and whether its cost has a budget. */
export interface GrowthRead {
  name: string;
  /** False for a listing that is meant to grow with the data (shown, not judged). */
  budget: boolean;
  run(subject: GrowthSubject): Promise<unknown>;
}

// Home's recent changes: home.ts's RECENT_CHANGES.
const RECENT_CHANGES = 10;

/** Every store read behind the audit command, the Home tab and the role list. */
export const GROWTH_READS: readonly GrowthRead[] = [
  {
    name: '/cometchat audit: page 1',
    budget: true,
    run: (s) => s.store.listAudit({ app: 'default', offset: 0, limit: AUDIT_PER_PAGE }),
  },
  {
    name: '/cometchat audit: page 3',
    budget: true,
    run: (s) =>
      s.store.listAudit({ app: 'default', offset: 2 * AUDIT_PER_PAGE, limit: AUDIT_PER_PAGE }),
  },
  {
    name: '/cometchat audit guest: page 1',
    budget: true,
    run: (s) =>
      s.store.listAudit({ app: 'default', role: 'guest', offset: 0, limit: AUDIT_PER_PAGE }),
  },
  {
    name: 'Home: approvals (open requests)',
    budget: true,
    run: (s) => s.store.listOpenApprovals(),
  },
  {
    name: 'Home: recent changes',
    budget: true,
    run: (s) => s.store.listAudit({ offset: 0, limit: RECENT_CHANGES }),
  },
  {
    name: 'Home: alerts in your channels, Slack asked',
    budget: true,
    run: (s) => s.alertsOfSomeoneNew(),
  },
  {
    name: 'Home: alerts in your channels, cached',
    budget: true,
    run: (s) => s.alerts('U0CACHED'),
  },
  {
    name: 'Home: known maps of two apps',
    budget: true,
    run: (s) =>
      Promise.all(
        ROLES.flatMap((role) =>
          ['default', 'staging'].map((app) => s.store.getKnownPermissions(app, role)),
        ),
      ),
  },
  {
    name: '/cometchat subscriptions: a channel',
    budget: true,
    run: (s) => s.store.listSubscriptions({ channel: channelId(7) }),
  },
  {
    name: '/cometchat roles',
    budget: true,
    run: (s) => s.roleList(),
  },
  {
    name: "a webhook's delivery: an app's subscriptions",
    budget: false,
    run: (s) => s.store.listSubscriptions({ app: 'staging' }),
  },
  {
    name: 'digest job (every minute): every subscription',
    budget: false,
    run: (s) => s.store.listSubscriptions({}),
  },
];

/**
 * The median time of each read on each subject: `[read][subject]`. Round by round every
 * subject is called once, in turns that swap each round, so that a slow spell of the machine
 * falls on all of them alike; the first `warmUp` rounds are not kept.
 */
export async function medianCosts(
  subjects: readonly GrowthSubject[],
  reads: readonly GrowthRead[],
  rounds: { kept: number; warmUp: number },
): Promise<number[][]> {
  const figures: number[][] = [];
  for (const read of reads) {
    const times = subjects.map((): number[] => []);
    for (let round = 0; round < rounds.warmUp + rounds.kept; round += 1) {
      const order = subjects.map((_, i) => i);
      if (round % 2 === 1) order.reverse();
      for (const i of order) {
        const subject = subjects[i];
        if (!subject) continue;
        const started = performance.now();
        await read.run(subject);
        if (round >= rounds.warmUp) times[i]?.push(performance.now() - started);
      }
    }
    figures.push(times.map(median));
  }
  return figures;
}

// ---- The audit export: its memory and its time per record, large store against small ----

/**
 * The collector, so that each export starts from what is live. The phase runs under tsx,
 * without --expose-gc; V8 gives `gc` to each context made after the flag is set, as Node's own
 * --expose-gc gives it to the main one.
 */
export function collector(): () => void {
  const exposed: unknown = globalThis.gc;
  if (typeof exposed === 'function') return () => exposed();
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('gc');
  if (typeof gc !== 'function') throw new Error('V8 gave no gc() with --expose-gc set');
  return () => gc();
}

/** The app whose trail is exported: a third of the records (record() spreads them over APPS). */
const EXPORT_APP = 'default';
/** After every record fillStore writes, so that the export (no bounds: up to now) takes them all. */
const EXPORT_NOW = 1_800_000_000_000;
const exportedRecords = (size: GrowthSize) => Math.ceil(size.records / APPS.length);

/** What one export sent: the file's bytes and its records (lines after the header). */
interface Sent {
  bytes: number;
  records: number;
}

/** Lines ended by CRLF in `chunk`, given the byte before it (a CRLF may fall across two chunks). */
function crlfLines(chunk: Uint8Array, before: number): number {
  let lines = 0;
  for (let at = chunk.indexOf(0x0a); at >= 0; at = chunk.indexOf(0x0a, at + 1)) {
    if ((at > 0 ? chunk[at - 1] : before) === 0x0d) lines += 1;
  }
  return lines;
}

/** One export: `onPage` is called with each page the export reads from the store, in hand. */
export type Exporter = (onPage?: () => void) => Promise<Sent>;

/**
 * `/cometchat audit export` (no bounds: the app's whole trail) as the command runs it, the file
 * streamed from disk by the app's own upload (src/slack/file-upload.ts) to a `fetch` that stands
 * in for Slack's upload address: it reads the bytes as they come, counting them and the lines,
 * and keeps none. The Web API client's two calls around it answer as Slack does.
 */
export function exportOf(store: Store): Exporter {
  let sent: Sent = { bytes: 0, records: 0 };
  let pageRead = () => {};
  const uploadAddress: typeof fetch = async (_url, init) => {
    const body = init?.body;
    if (!(body instanceof ReadableStream)) throw new Error('the file was not streamed');
    let before = 0;
    let lines = 0;
    for await (const chunk of body) {
      if (!(chunk instanceof Uint8Array)) throw new Error('the file was not sent as bytes');
      sent.bytes += chunk.length;
      lines += crlfLines(chunk, before);
      before = chunk.at(-1) ?? 0;
    }
    // The header is not a record.
    sent.records = lines - 1;
    return new Response(null, { status: 200 });
  };
  const run = createAuditExport({
    store: {
      listAuditBetween: async (query) => {
        const page = await store.listAuditBetween(query);
        pageRead();
        return page;
      },
    },
    client: {
      conversations: { open: async () => ({ ok: true, channel: { id: 'D0BENCH' } }) },
      files: {
        getUploadURLExternal: async () => ({
          ok: true,
          upload_url: 'https://files.slack.invalid/upload/F0BENCH',
          file_id: 'F0BENCH',
        }),
        completeUploadExternal: async () => ({ ok: true, files: [] }),
      },
    },
    postFile: (url, path, length) => postFileToUploadUrl(url, path, length, uploadAddress),
    timeZones: { of: async () => 'UTC' },
    now: () => EXPORT_NOW,
  });
  const asker = { userId: 'U0OPERATOR', app: EXPORT_APP, respond: async () => {}, log: silent };
  return async (onPage = () => {}) => {
    sent = { bytes: 0, records: 0 };
    pageRead = onPage;
    try {
      await run({ export: true }, asker);
    } finally {
      pageRead = () => {};
    }
    return sent;
  };
}

/**
 * How many times the export's heap is collected and read while it runs, at most: a collection
 * of the bench's heap costs tens of ms, and a trail held whole grows from one reading to the next.
 */
const SAMPLES = 8;

/**
 * The export's peak JS heap above the heap it started on: collected first, then collected and
 * read at the first page the export reads and every `every`th after (the page in hand, and
 * whatever the export kept of the pages before it: a trail held whole would be there, a little
 * more at each sample) and once at the end. Collecting before each reading leaves out the
 * garbage of the lines already written, which the young generation holds until its next
 * scavenge: a few MiB that come and go whatever the export holds.
 */
export async function exportHeapGrowth(
  exported: Exporter,
  gc: () => void,
  every: number,
): Promise<Sent & { heapGrowth: number }> {
  gc();
  const start = process.memoryUsage().heapUsed;
  let peak = start;
  const sample = () => {
    gc();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  };
  let pages = 0;
  const sent = await exported(() => {
    if (pages % every === 0) sample();
    pages += 1;
  });
  sample();
  return { ...sent, heapGrowth: peak - start };
}

/**
 * For scale, not the export: the JS heap that one app's whole trail takes when read from the
 * store at once, as an export that held it would hold it.
 */
export async function wholeTrailHeap(store: Store, size: GrowthSize, gc: () => void) {
  return heldHeap(store, exportedRecords(size), gc);
}

/**
 * The export's baseline: the JS heap one page of the trail (EXPORT_PAGE_SIZE records, or the
 * whole trail when shorter) takes when read from the store, which an export must hold at least.
 */
export async function onePageHeap(store: Store, size: GrowthSize, gc: () => void) {
  return heldHeap(store, Math.min(EXPORT_PAGE_SIZE, exportedRecords(size)), gc);
}

/** The JS heap `records` of the app's trail take, read from the store at once and held. */
async function heldHeap(store: Store, records: number, gc: () => void) {
  gc();
  const start = process.memoryUsage().heapUsed;
  const trail = await store.listAuditBetween({
    app: EXPORT_APP,
    from: 0,
    to: EXPORT_NOW,
    limit: records,
  });
  gc();
  const held = process.memoryUsage().heapUsed - start;
  if (trail.length !== records) throw new Error(`${records} records were not read`);
  return held;
}

/** One export's time, nothing sampled. */
export async function exportTime(exported: Exporter): Promise<Sent & { ms: number }> {
  const started = performance.now();
  const sent = await exported();
  return { ...sent, ms: performance.now() - started };
}

/** What medianExports gives for each subject. */
export interface ExportFigures extends Sent {
  heapGrowth: number;
  msPerRecord: number;
  /** The heap the app's trail takes read whole (wholeTrailHeap), for scale. */
  wholeTrail: number;
  /** The heap one page of it takes (onePageHeap): the heap budget's baseline. */
  onePage: number;
}

/**
 * The median export of each subject, its peak heap and its time per record taken in runs of
 * their own (a collection at each page would be timed too); rounds as medianCosts's, the
 * subjects in turns that swap each round.
 */
export async function medianExports(
  subjects: readonly { store: Store; exported: Exporter; size: GrowthSize }[],
  rounds: { kept: number; warmUp: number },
): Promise<ExportFigures[]> {
  const gc = collector();
  const heaps = subjects.map((): number[] => []);
  const times = subjects.map((): number[] => []);
  const last = subjects.map((): Sent => ({ bytes: 0, records: 0 }));
  // A figure counts only for a file that holds the app's whole trail.
  const checked = <T extends Sent>(sent: T, size: GrowthSize): T => {
    if (sent.records === exportedRecords(size)) return sent;
    throw new Error(`the export sent ${sent.records} records of ${exportedRecords(size)}`);
  };
  for (let round = 0; round < rounds.warmUp + rounds.kept; round += 1) {
    const order = subjects.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      const subject = subjects[i];
      if (!subject) continue;
      const pages = Math.ceil(exportedRecords(subject.size) / EXPORT_PAGE_SIZE);
      const every = Math.max(1, Math.floor(pages / SAMPLES));
      const heap = checked(await exportHeapGrowth(subject.exported, gc, every), subject.size);
      const time = checked(await exportTime(subject.exported), subject.size);
      if (round < rounds.warmUp) continue;
      heaps[i]?.push(heap.heapGrowth);
      times[i]?.push(time.ms / time.records);
      last[i] = time;
    }
  }
  const wholeTrail: number[] = [];
  const onePage: number[] = [];
  for (const subject of subjects) {
    wholeTrail.push(await wholeTrailHeap(subject.store, subject.size, gc));
    onePage.push(await onePageHeap(subject.store, subject.size, gc));
  }
  return subjects.map((_, i) => ({
    ...(last[i] ?? { bytes: 0, records: 0 }),
    heapGrowth: median(heaps[i] ?? []),
    msPerRecord: median(times[i] ?? []),
    wholeTrail: wholeTrail[i] ?? Number.NaN,
    onePage: onePage[i] ?? Number.NaN,
  }));
}

interface GrowthPlan {
  small: GrowthSize;
  large: GrowthSize;
  rounds: { kept: number; warmUp: number };
  /** The export's rounds: each a run for its heap and a run for its time, on each store. */
  exportRounds: { kept: number; warmUp: number };
}

function growthPlan(quick: boolean): GrowthPlan {
  const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  return {
    small: { records: 100, subscriptions: 100 },
    large: {
      records: env('GROWTH_RECORDS', quick ? 10_000 : 100_000),
      subscriptions: env('GROWTH_SUBSCRIPTIONS', 1_000),
    },
    rounds: { kept: env('GROWTH_ROUNDS', quick ? 60 : 300), warmUp: quick ? 10 : 50 },
    exportRounds: { kept: env('GROWTH_EXPORT_ROUNDS', quick ? 5 : 7), warmUp: 1 },
  };
}

const sizeLabel = (size: GrowthSize) =>
  `${size.records.toLocaleString('en')} records, ${size.subscriptions.toLocaleString('en')} subs`;

/** The reads on a small and a large store of one backend: their table and their budgets. */
async function measureOn(
  name: string,
  open: (label: string) => Promise<Store>,
  plan: GrowthPlan,
  progress: (line: string) => void,
): Promise<{ lines: string[]; budgets: Budget[] }> {
  const small = await open('small');
  let large: Store | undefined;
  try {
    large = await open('large');
    for (const [store, size] of [
      [small, plan.small],
      [large, plan.large],
    ] as const) {
      const started = performance.now();
      await fillStore(store, size);
      progress(
        `growth: ${name}, ${sizeLabel(size)} filled in ${ms(performance.now() - started, 0)}`,
      );
    }
    const subjects = [growthSubject(small), growthSubject(large)];
    const started = performance.now();
    const [smallCosts = [], largeCosts = []] = transpose(
      await medianCosts(subjects, GROWTH_READS, plan.rounds),
    );
    progress(`growth: ${name}, reads timed in ${ms(performance.now() - started, 0)}`);
    const storeReads = subjects.map((s) => s.roleListStoreReads());
    const reads = growthTable(name, plan, [smallCosts, largeCosts], storeReads);
    const exportStarted = performance.now();
    const exports = await medianExports(
      [
        { store: small, exported: exportOf(small), size: plan.small },
        { store: large, exported: exportOf(large), size: plan.large },
      ],
      plan.exportRounds,
    );
    progress(`growth: ${name}, export measured in ${ms(performance.now() - exportStarted, 0)}`);
    const exported = exportTable(name, plan, exports);
    return {
      lines: [...reads.lines, ...exported.lines],
      budgets: [...reads.budgets, ...exported.budgets],
    };
  } finally {
    await small.close();
    await large?.close();
  }
}

/** `[read][subject]` as `[subject][read]`. */
function transpose(figures: readonly number[][]): number[][] {
  return (figures[0] ?? []).map((_, j) => figures.map((row) => row[j] ?? Number.NaN));
}

function growthTable(
  name: string,
  plan: GrowthPlan,
  [small, large]: readonly (readonly number[])[],
  roleListStoreReads: readonly number[],
): { lines: string[]; budgets: Budget[] } {
  const cost = (list: readonly number[] | undefined, i: number) => list?.[i] ?? Number.NaN;
  const rows = GROWTH_READS.map((read, i) => [
    read.budget ? read.name : `${read.name} (grows by design, no budget)`,
    ms(cost(small, i), 3),
    ms(cost(large, i), 3),
    ratio(cost(large, i), cost(small, i)),
  ]);
  const lines = [
    `\n#### ${name}\n`,
    table(['read', sizeLabel(plan.small), sizeLabel(plan.large), 'ratio'], rows),
    `The role list touched the store ${roleListStoreReads.join(' and ')} times over all its calls ` +
      '(small store, large store). It asks CometChat for a page of roles and how many users ' +
      'hold each; nothing it reads is kept in the store, so nothing of it grows with the data. ' +
      'It is timed with each store given to it all the same, so that a read added later shows here.',
  ];
  const budgets = GROWTH_READS.flatMap((read, i): Budget[] =>
    read.budget
      ? [
          {
            name: `growth, ${name}: ${read.name}`,
            measured: ratio(cost(large, i), cost(small, i)),
            limit: '≤ 2×',
            pass: cost(large, i) <= 2 * cost(small, i),
          },
        ]
      : [],
  );
  return { lines, budgets };
}

/** The export's figures on the small and the large store, and its two budgets. */
function exportTable(
  name: string,
  plan: GrowthPlan,
  [small, large]: readonly ExportFigures[],
): { lines: string[]; budgets: Budget[] } {
  const heap = (f: ExportFigures | undefined) => f?.heapGrowth ?? Number.NaN;
  const perRecord = (f: ExportFigures | undefined) => f?.msPerRecord ?? Number.NaN;
  const file = (f: ExportFigures | undefined) =>
    f ? `${f.records.toLocaleString('en')} records, ${kib(f.bytes)}` : 'n/a';
  const rows = [
    ['the file sent (records of one app, size)', file(small), file(large), ''],
    [
      'peak JS heap above its start',
      kib(heap(small)),
      kib(heap(large)),
      ratio(heap(large), heap(small)),
    ],
    [
      "baseline: one page of the trail read whole (the export's budget: ≤ 4 pages)",
      kib(small?.onePage ?? Number.NaN),
      kib(large?.onePage ?? Number.NaN),
      '',
    ],
    [
      'for scale, not the export: the trail read whole',
      kib(small?.wholeTrail ?? Number.NaN),
      kib(large?.wholeTrail ?? Number.NaN),
      ratio(large?.wholeTrail ?? Number.NaN, small?.wholeTrail ?? Number.NaN),
    ],
    [
      'time per record',
      ms(perRecord(small), 4),
      ms(perRecord(large), 4),
      ratio(perRecord(large), perRecord(small)),
    ],
  ];
  const lines = [
    '',
    table(
      [
        `/cometchat audit export (${EXPORT_APP})`,
        sizeLabel(plan.small),
        sizeLabel(plan.large),
        'ratio',
      ],
      rows,
    ),
    `The export's figures are medians of ${plan.exportRounds.kept} runs on each store, after ` +
      `${plan.exportRounds.warmUp}: its heap collected, then collected and read at each page of ` +
      `${EXPORT_PAGE_SIZE} records it reads (on a long trail, about ${SAMPLES} of them spread ` +
      'evenly) and at its end; its time in runs of their own. The trail read whole is read once, ' +
      'for scale.',
  ];
  // Against one page held, not against the small store's export: a trail shorter than a page
  // grows the heap by next to nothing, so any export that reads pages looks hundreds of times
  // larger. The export holds the page it writes, the next one read, and the streams' buffers;
  // a trail held whole is as many pages as it has (67 on the large store).
  const onePage = large?.onePage ?? Number.NaN;
  const budgets: Budget[] = [
    {
      name: `growth, ${name}: audit export of the large store, peak JS heap ÷ one page held`,
      measured: ratio(heap(large), onePage),
      limit: '≤ 4×',
      pass: heap(large) <= 4 * onePage,
    },
    {
      name: `growth, ${name}: audit export, time per record`,
      measured: ratio(perRecord(large), perRecord(small)),
      limit: '≤ 2×',
      pass: perRecord(large) <= 2 * perRecord(small),
    },
  ];
  return { lines, budgets };
}

export interface GrowthFigures {
  /** The tables, ready to print. */
  report: string;
  budgets: Budget[];
  /** False when no redis-server was found: Redis was not measured, and the report says so. */
  redisMeasured: boolean;
}

/**
 * Every read of GROWTH_READS, and the audit export, on a small and a large store, SQLite's and
 * Redis's. About two minutes in full on two cores: filling the large SQLite store (one
 * transaction a record) and the export take most of it; `quick`, with 10,000 records and fewer
 * calls, a quarter of that.
 */
export async function measureGrowth(options: {
  progress: (line: string) => void;
  quick: boolean;
}): Promise<GrowthFigures> {
  const plan = growthPlan(options.quick);
  const lines = [
    `\n### Growth with data: ${sizeLabel(plan.large)} against ${sizeLabel(plan.small)}`,
    '',
    `Median of ${plan.rounds.kept} calls of each read on each store, after ${plan.rounds.warmUp}, ` +
      'the two stores called in turn. Slack (the person is in 200 channels, 10 of them ' +
      'with a subscription in either store) and CometChat answer in-process.',
  ];
  const budgets: Budget[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-growth-'));
  const redisMeasured = onPath('redis-server');
  try {
    const sqlite = await measureOn(
      'SQLite',
      async (label) => createSqliteStore(join(dir, `${label}.db`)),
      plan,
      options.progress,
    );
    lines.push(...sqlite.lines);
    budgets.push(...sqlite.budgets);
    if (redisMeasured) {
      const redis = await startRedis();
      try {
        const measured = await measureOn(
          'Redis',
          (label) => createRedisStore(redis.url, { keyPrefix: `growth:${label}:` }),
          plan,
          options.progress,
        );
        lines.push(...measured.lines);
        budgets.push(...measured.budgets);
      } finally {
        await redis.stop();
      }
    } else {
      lines.push(`\nREDIS NOT MEASURED: redis-server is not on PATH; ${REDIS_INSTALL_HINT}.`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { report: lines.join('\n'), budgets, redisMeasured };
}

async function main(): Promise<void> {
  const began = performance.now();
  const quick = process.env.BENCH_QUICK === '1';
  console.log(`# growth with data · ${machine()}${quick ? ' · QUICK (smoke run)' : ''}`);
  const figures = await measureGrowth({ progress: (line) => console.error(`· ${line}`), quick });
  console.log(figures.report);
  console.log('\n## Budgets');
  console.log(budgetLines(figures.budgets));
  const met = figures.budgets.filter((b) => b.pass).length;
  console.log(
    `\n${met} of ${figures.budgets.length} budgets met. Total run time ${((performance.now() - began) / 1000).toFixed(0)} s.`,
  );
}

// Run as `npm run bench:growth`; imported (by bench/run.ts, the smoke test), it only exports.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`\nThe bench broke: ${(error as Error)?.stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
