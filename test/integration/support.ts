import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { createSlackDriver, type SlackDriver } from '../../offline/slack-standin/driver.ts';
import { initialStateValues } from '../../offline/slack-standin/view-state.ts';
import type { StoredView } from '../../offline/slack-standin/web-api.ts';
import {
  confirm,
  confirmationOf,
  openEditor,
  type SubmitAnswer,
  submitView,
  switchCategory,
  withFieldSet,
} from '../../offline/stack/editor-steps.ts';
import {
  OFFLINE_OPERATOR,
  OFFLINE_SECRETS,
  type OfflineStackOptions,
  startOfflineStack,
} from '../../offline/stack/offline-stack.ts';
import { decodeState } from '../../src/features/permissions/editor-state.ts';
import { duplicateKeys } from '../log-ecs-rules.ts';
import { type Harness, signedJson, startHarness, tableRecords, textOf } from './harness.ts';

// What the integration tests share beyond the harness itself: how a describe block gets its
// harness and checks it after each test, the editor driven through a whole change, and small
// readers of what reached the sandbox.

/** A stack frame, a file position or an error class name: none belongs in a reply. */
export const STACK_TRACE = /\n\s+at |\.ts:\d+|\.js:\d+|[A-Z][a-zA-Z]*Error\b/;

// ---------------------------------------------------------------------------------------------
// Lifecycle

interface HarnessChecks {
  /** Checks after each test, run after the Block Kit check of every payload. */
  alsoCheck?: (h: Harness) => void | Promise<void>;
}

/** Stands for whichever harness `current` returns, so a describe block can name it once. */
function runningHarness(current: () => Harness | undefined): Harness {
  return new Proxy({} as Harness, {
    get(_target, key) {
      // Not a promise: `await` on the stand-in must not look for a harness.
      if (key === 'then') return undefined;
      const h = current();
      if (!h) throw new Error('no harness is running here (only inside a test or a hook)');
      return Reflect.get(h, key);
    },
  });
}

/**
 * For a describe block whose tests each start their own harness: returns the function they
 * start it with. After each test, every payload of the harness it started is checked against
 * Block Kit's limits, then `alsoCheck`, and the harness stops.
 */
export function useHarnessStarter(
  checks: HarnessChecks = {},
): (options?: OfflineStackOptions) => Promise<Harness> {
  let current: Harness | undefined;
  afterEach(async () => {
    const h = current;
    current = undefined;
    if (!h) return;
    h.checkAllPayloads();
    expectNoKeyTwice(h);
    await checks.alsoCheck?.(h);
    await h.stop();
  });
  return async (options = {}) => {
    current = await startHarness(options);
    return current;
  };
}

/**
 * A fresh harness for each test of the enclosing describe block, started with `options` before
 * the test and checked and stopped after it as {@link useHarnessStarter} does. Returns the
 * harness of the running test.
 */
export function useHarness(options: OfflineStackOptions = {}, checks: HarnessChecks = {}): Harness {
  const start = useHarnessStarter(checks);
  let current: Harness | undefined;
  beforeEach(async () => {
    current = await start(options);
  });
  return runningHarness(() => current);
}

/**
 * For a describe block whose tests run two replicas of the app: returns the function that
 * starts them with `env` (a shared store, say), both talking to the same CometChat and the same
 * Slack; they stop after each test.
 */
export function useReplicas(): (env: Record<string, string>) => Promise<[Harness, Harness]> {
  const running: Harness[] = [];
  afterEach(async () => {
    for (const h of running.splice(0).reverse()) await h.stop();
  });
  return async (env) => {
    const a = await startHarness({ env });
    running.push(a);
    const bStack = await startOfflineStack({
      env: { ...env, LOG_LEVEL: 'debug' },
      // Into the first replica's capture, which `b` reads as its own logs.
      logDestination: a.logs,
      shared: { sandbox: a.sandbox, slack: a.slack },
    });
    const b: Harness = { ...a, ...bStack, logs: a.logs, stop: bStack.stop };
    running.push(b);
    return [a, b];
  };
}

/** Records unhandled rejections while the app runs in this process. */
export function watchRejections() {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => seen.push(reason);
  return {
    seen,
    start: () => process.on('unhandledRejection', listener),
    stop: () => process.off('unhandledRejection', listener),
  };
}

/** The app still answers its health check. */
export async function expectHealthy(h: Harness): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${h.app.port}/healthz`);
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ ok: true });
}

/**
 * A fresh CometChat and a fresh Slack (the operator a workspace admin again) and an empty log;
 * the app keeps running throughout.
 */
export function resetServices(h: Harness): void {
  h.sandbox.reset();
  h.slack.reset();
  h.slack.setUsers([{ id: OFFLINE_OPERATOR, is_admin: true }]);
  h.logs.lines.length = 0;
}

/**
 * One harness for the whole describe block (started from `start`, options or a function), with
 * unhandled rejections watched while it runs. After each test: every payload within Block Kit's
 * limits, `alsoCheck`, the app still healthy, no unhandled rejection; then, with
 * `resetAfterEach`, fresh services for the next test. Returns the harness.
 */
export function useSharedHarness(
  start: OfflineStackOptions | (() => Promise<Harness>) = {},
  checks: HarnessChecks & { resetAfterEach?: boolean } = {},
): Harness {
  let current: Harness | undefined;
  const rejections = watchRejections();
  beforeAll(async () => {
    rejections.start();
    current = await (typeof start === 'function' ? start() : startHarness(start));
  });
  afterAll(async () => {
    await current?.stop();
    rejections.stop();
  });
  afterEach(async () => {
    const h = current;
    if (!h) return;
    h.checkAllPayloads();
    expectNoKeyTwice(h);
    await checks.alsoCheck?.(h);
    await expectHealthy(h);
    expect(rejections.seen).toEqual([]);
    if (checks.resetAfterEach) resetServices(h);
  });
  return runningHarness(() => current);
}

/** A log line holding a key twice is refused by Elasticsearch (and JSON.parse hides it). */
function expectNoKeyTwice(h: Harness): void {
  const twice = h.logs.lines.flatMap((line) => duplicateKeys(line).map((key) => `${key}: ${line}`));
  expect(twice, 'log lines with a key written twice').toEqual([]);
}

/** No secret of the offline stack in any log line or anything that reached Slack. */
export function expectNoSecretLeaked(h: Harness): void {
  const seen = [
    h.logs.text(),
    JSON.stringify(h.messages()),
    JSON.stringify(h.views()),
    JSON.stringify(h.slack.refusedResponses),
  ].join('\n');
  for (const secret of [
    OFFLINE_SECRETS.apiKey,
    OFFLINE_SECRETS.signingSecret,
    h.slack.botToken,
    h.slack.appToken,
  ]) {
    expect(seen).not.toContain(secret);
  }
}

// ---------------------------------------------------------------------------------------------
// Slack users and what reached the sandbox

/**
 * What the app asked CometChat for, without the counts of a role's users (`GET /v3/users` with
 * `perPage=1`) that the role list and the editor's review add beside their own request.
 */
export function withoutHolderCounts(h: Pick<Harness, 'sandbox'>) {
  return h.sandbox.requests.filter((r) => !isHolderCount(r));
}

export function isHolderCount(request: { path: string; query: Record<string, string> }): boolean {
  return request.path === '/v3/users' && request.query.perPage === '1' && 'role' in request.query;
}

/** A driver that acts as `userId` against the harness's app. */
export function driverAs(h: Harness, userId: string): SlackDriver {
  return createSlackDriver({
    appUrl: h.appUrl,
    signingSecret: h.config.slack.signingSecret ?? '',
    standIn: h.slack,
    userId,
  });
}

/** A driver whose commands and clicks come from `channelId`, as the harness's user. */
export function driverIn(h: Harness, channelId: string): SlackDriver {
  return createSlackDriver({
    appUrl: h.appUrl,
    signingSecret: h.config.slack.signingSecret ?? '',
    standIn: h.slack,
    channelId,
  });
}

/** Permission updates that reached the sandbox. */
export function puts(h: Harness) {
  return h.sandbox.requests.filter((r) => r.method === 'PUT');
}

/** Call lookups that reached the sandbox. */
export function callRequests(h: Harness) {
  return h.sandbox.requests.filter((r) => r.path.startsWith('/v3/calls/'));
}

/**
 * The newest record of `/cometchat audit <role>`, as its row of the list's table, each cell's
 * text under its column's title (`Outcome`, `Reference`, ...). The command is acknowledged within
 * Slack's three seconds.
 */
export async function newestAudit(h: Harness, role = 'default'): Promise<Record<string, string>> {
  const mark = h.slack.responses.length;
  const sent = await h.driver.command(`audit ${role}`);
  expect(sent.status).toBe(200);
  expect(sent.elapsedMs).toBeLessThan(3000);
  const [newest] = tableRecords((await h.slack.nextResponse(mark)).body);
  if (!newest) throw new Error(`no audit record for ${role}`);
  return newest;
}

// ---------------------------------------------------------------------------------------------
// The permission editor through a whole change

type FieldValue = string | string[];

/** The allowed actions a category of the editor shows checked. */
export function allowedActions(view: StoredView): string[] {
  return Object.entries(initialStateValues(view))
    .filter(([blockId]) => blockId.startsWith('a:'))
    .flatMap(([, field]) =>
      (field.perms_field as { selected_options: { value: string }[] }).selected_options.map(
        (o) => o.value,
      ),
    );
}

export interface Change {
  /** The app named in the command; none unless said (the app chooses). */
  app?: string;
  /** The role whose editor is opened; `default` unless said. */
  role?: string;
  /** The category the field is in; `Messages` unless said. */
  category?: string;
  key: string;
  /** The value to set, or how to choose it from the category as shown. */
  value: FieldValue | ((shown: StoredView) => FieldValue);
}

export interface ReviewedChange {
  /** The editor as it opened. */
  editor: StoredView;
  /** The category the change was made in, as it was shown. */
  view: StoredView;
  review: SubmitAnswer;
  confirmation: StoredView;
}

/**
 * Opens the editor, switches to the change's category, sets the one field and reviews: resolves
 * once the confirmation is pushed, ready for "Apply".
 */
export async function reviewChange(h: Harness, change: Change): Promise<ReviewedChange> {
  const { role = 'default', category = 'Messages', key } = change;
  const editor = await openEditor(h, role, change.app);
  const view =
    decodeState(JSON.stringify(signedJson(editor.private_metadata)))?.category === category
      ? editor
      : await switchCategory(h, editor, category);
  const value = typeof change.value === 'function' ? change.value(view) : change.value;
  const review = await submitView(h, view, withFieldSet(view, key, value));
  expect(review.response_action).toBe('push');
  const confirmation = confirmationOf(h, editor);
  if (!confirmation) throw new Error('no confirmation view');
  return { editor, view, review, confirmation };
}

/**
 * A reviewed change of an allowed action of the Messages category that flips what the editor
 * shows (deny where it is allowed, allow where it is not): a change whatever came before.
 */
export function reviewFlip(h: Harness, key = 'sendMessage', role = 'default', app?: string) {
  return reviewChange(h, {
    ...(app ? { app } : {}),
    role,
    key,
    value: (shown) => (allowedActions(shown).includes(key) ? 'deny' : 'allow'),
  });
}

/**
 * Resolves once `count` confirmations have been answered in the editor: applied, or refused as
 * already submitted.
 */
export function confirmationsAnswered(h: Harness, count: number, timeoutMs?: number) {
  return h.slack.waitFor(
    () =>
      h.slack.calls.filter(
        (c) =>
          c.method === 'views.update' &&
          /Resulting permissions|already submitted/.test(textOf(c.args.view)),
      ).length >= count || undefined,
    timeoutMs,
  );
}

/** Reviews the change and applies it: resolves with the review, the pending answer and the outcome. */
export async function applyChange(h: Harness, change: Change) {
  const { review, confirmation } = await reviewChange(h, change);
  return { review, ...(await confirm(h, confirmation)) };
}

// ---------------------------------------------------------------------------------------------
// Readiness

/** The app's /readyz answer: its status and JSON body. */
export async function readiness(h: Harness) {
  const response = await fetch(`http://127.0.0.1:${h.app.opsPort}/readyz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Waits until /readyz answers `status`, asking every 50 ms. */
export async function readyzTurns(h: Harness, status: 200 | 503, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while ((await readiness(h)).status !== status) {
    if (Date.now() > deadline)
      throw new Error(`/readyz did not answer ${status} in ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
