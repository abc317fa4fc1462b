import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type FaultSpec, SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import { confirm } from '../../offline/stack/editor-steps.ts';
import {
  expectNoInjectedMarkup,
  type Harness,
  logsWithRef,
  markupOf,
  referenceOf,
  startHarness,
  textOf,
} from './harness.ts';
import {
  expectNoSecretLeaked,
  newestAudit,
  puts,
  reviewFlip,
  STACK_TRACE,
  useSharedHarness,
} from './support.ts';

// Every fault of the REST API, for each of the three things that call it, through the real app:
// the user hears one sentence within the time budget, the process stays up, and the log line
// carries the reference and the cause. errors.test.ts holds the finer points of single faults
// (the 401, what is retried); this file is the matrix.

const TIMEOUT_MS = 300;
const BUDGET_MS = 1200;
/** The budget as the sentences say it (COMETCHAT_BUDGET_MS, rounded to seconds). */
const BUDGET_WORDS = '1 second';
/** Generous on purpose: two workers share two cores, and Slack's own clock is not this tight. */
const MARGIN_MS = 1500;
const FAST_ENV = {
  COMETCHAT_TIMEOUT_MS: String(TIMEOUT_MS),
  COMETCHAT_BUDGET_MS: String(BUDGET_MS),
};

const CALL = SANDBOX_SESSION_IDS.audioEnded;

type Scope = Pick<FaultSpec, 'method' | 'pathIncludes'>;

interface Seen {
  /** A message (role list, call lookup) or a view (editor outcome). */
  payload: Record<string, unknown>;
  ms: number;
}

interface Operation {
  name: string;
  /** How failure sentences name it. */
  what: string;
  operation: 'listRoles' | 'getCall' | 'setRolePermissions' | 'listCalls';
  scope: Scope;
  /** Runs it once, with `fault` injected at the moment the user acts. */
  run(h: Harness, fault?: FaultSpec): Promise<Seen>;
  /** Text that only a successful answer shows. */
  success: string;
}

async function commandOutcome(h: Harness, text: string, fault?: FaultSpec): Promise<Seen> {
  if (fault) h.sandbox.inject(fault);
  const mark = h.slack.responses.length;
  const started = performance.now();
  const sent = await h.driver.command(text);
  expect(sent.status).toBe(200);
  // Acknowledged at once, whatever CometChat does (Slack allows three seconds).
  expect(sent.elapsedMs).toBeLessThan(3000);
  const reply = await h.slack.nextResponse(mark, BUDGET_MS + MARGIN_MS + 2000);
  return { payload: reply.body, ms: performance.now() - started };
}

const ROLE_LIST: Operation = {
  name: 'role list',
  what: 'the role list',
  operation: 'listRoles',
  scope: { method: 'GET', pathIncludes: '/v3/roles' },
  run: (h, fault) => commandOutcome(h, 'roles', fault),
  success: 'CometChat roles',
};

const CALL_LOOKUP: Operation = {
  name: 'call lookup',
  what: 'the call lookup',
  operation: 'getCall',
  scope: { method: 'GET', pathIncludes: '/v3/calls/' },
  run: (h, fault) => commandOutcome(h, `call ${CALL}`, fault),
  success: 'Audio call',
};

const CALL_SEARCH: Operation = {
  name: 'call search',
  what: 'the call search',
  operation: 'listCalls',
  // The list's path is `/v3/calls` itself; a single call's is longer.
  scope: { method: 'GET', pathIncludes: '/v3/calls' },
  run: (h, fault) => commandOutcome(h, 'calls cometchat-uid-2 status:ended', fault),
  success: 'calls of `cometchat-uid-2`',
};

const EDITOR_CONFIRM: Operation = {
  name: 'editor confirm',
  what: 'the permission update',
  operation: 'setRolePermissions',
  scope: { method: 'PUT' },
  async run(h, fault) {
    // The editor opens with a healthy service; the fault hits the update only.
    const { confirmation } = await reviewFlip(h);
    if (fault) h.sandbox.inject(fault);
    const started = performance.now();
    const { pending, outcome } = await confirm(h, confirmation);
    expect(pending.status).toBe(200);
    expect(pending.response_action).toBe('update');
    return {
      payload: outcome as unknown as Record<string, unknown>,
      ms: performance.now() - started,
    };
  },
  success: 'Resulting permissions',
};

const OPERATIONS = [ROLE_LIST, CALL_LOOKUP, CALL_SEARCH, EDITOR_CONFIRM];

interface Expected {
  sentence: string;
  kind: string;
  status?: number;
  code?: string;
  /** Matched against the `cause` of the log line, when the failure has no HTTP status. */
  cause?: RegExp;
  /** How many requests reached the sandbox: a number, or 'retried' (more than one). */
  requests?: number | 'retried';
  /**
   * The request may have reached CometChat with no readable answer: an update's outcome is then
   * unknown, not failed.
   */
  mayHaveApplied?: boolean;
}

const unavailable = (op: Operation, status?: number): string =>
  `CometChat is not answering ${op.what} right now${status ? ` (HTTP ${status})` : ''}. Try again in a minute; if it lasts, check CometChat's status page.`;

const refused = (op: Operation): string => {
  const url =
    op.operation === 'getCall' || op.operation === 'listCalls'
      ? 'COMETCHAT_CALL_API_URL'
      : 'COMETCHAT_API_URL';
  return `Nothing answered at CometChat's address for ${op.what} (the connection was refused). If this app worked before, try again in a minute and check CometChat's status page; if it never did, an admin should check ${url} if it is set, else COMETCHAT_APP_ID and COMETCHAT_REGION.`;
};

/** What an update is told when no answer settled whether it was applied; undefined for a read. */
const unconfirmed = (op: Operation, status?: number): string | undefined =>
  op.operation === 'setRolePermissions'
    ? `CometChat did not confirm the permission update${status ? ` (HTTP ${status})` : ''}, so it may or may not have been applied. Open the editor again to check before retrying.`
    : undefined;

const timedOut = (op: Operation): string =>
  op.operation === 'setRolePermissions'
    ? `CometChat did not answer the permission update within ${BUDGET_WORDS}, so it may or may not have been applied. Open the editor again to check before retrying.`
    : `CometChat did not answer ${op.what} within ${BUDGET_WORDS}. Try again in a moment.`;

const unreadable = (op: Operation): string =>
  op.operation === 'setRolePermissions'
    ? 'CometChat answered the permission update with something this app cannot read, so it may or may not have been applied. Report the reference; the details are in the log.'
    : `CometChat answered ${op.what} with something this app cannot read. Report the reference; the details are in the log.`;

interface FaultCase {
  name: string;
  fault: Omit<FaultSpec, 'method' | 'pathIncludes'>;
  expected(op: Operation): Expected;
}

const FAULTS: FaultCase[] = [
  {
    name: '500 with an error body',
    fault: { kind: 'status', status: 500, times: Number.POSITIVE_INFINITY },
    expected: (op) => ({
      sentence: unavailable(op, 500),
      kind: 'unavailable',
      status: 500,
      code: 'ERR_INTERNAL_SERVER_ERROR',
      requests: 'retried',
    }),
  },
  {
    name: '502 from a proxy (an HTML page, no error body)',
    fault: {
      kind: 'status',
      status: 502,
      rawBody: '<html><body><h1>502 Bad Gateway</h1></body></html>',
      times: Number.POSITIVE_INFINITY,
    },
    expected: (op) => ({
      // The service behind the gateway may have finished an update after the gateway gave up.
      sentence: unconfirmed(op, 502) ?? unavailable(op, 502),
      kind: 'unavailable',
      status: 502,
      cause: /no error body/,
      requests: 'retried',
      mayHaveApplied: true,
    }),
  },
  {
    name: '503 with an empty body',
    fault: { kind: 'status', status: 503, body: null, times: Number.POSITIVE_INFINITY },
    expected: (op) => ({
      sentence: unavailable(op, 503),
      kind: 'unavailable',
      status: 503,
      cause: /no error body/,
      requests: 'retried',
    }),
  },
  {
    name: '429 with a short Retry-After, cleared on the retry',
    fault: { kind: 'status', status: 429, headers: { 'retry-after': '1' } },
    // Waited for (it fits the budget) and retried: the user gets the answer, not an error.
    expected: () => ({ sentence: '', kind: 'success', requests: 2 }),
  },
  {
    name: '429 with a short Retry-After that keeps coming',
    fault: {
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '1' },
      times: Number.POSITIVE_INFINITY,
    },
    expected: () => ({
      sentence:
        'CometChat is rate limiting this app (`ERR_TOO_MANY_REQUESTS`); try again in 1 second.',
      kind: 'rate_limited',
      status: 429,
      code: 'ERR_TOO_MANY_REQUESTS',
      // One wait of a second fits the budget; a second one does not.
      requests: 2,
    }),
  },
  {
    name: '429 with a Retry-After longer than the budget',
    fault: {
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '90' },
      times: Number.POSITIVE_INFINITY,
    },
    expected: () => ({
      sentence:
        'CometChat is rate limiting this app (`ERR_TOO_MANY_REQUESTS`); try again in 90 seconds.',
      kind: 'rate_limited',
      status: 429,
      code: 'ERR_TOO_MANY_REQUESTS',
      requests: 1,
    }),
  },
  {
    name: 'an answer slower than the timeout',
    fault: { kind: 'delay', delayMs: 10_000, times: Number.POSITIVE_INFINITY },
    expected: (op) => ({
      sentence: timedOut(op),
      kind: 'timeout',
      cause: /timed out|time budget/,
      requests: 'retried',
      mayHaveApplied: true,
    }),
  },
  {
    name: 'a reset connection',
    fault: { kind: 'reset', times: Number.POSITIVE_INFINITY },
    expected: (op) => ({
      // The connection broke after the request was sent: an update may have been applied.
      sentence: unconfirmed(op) ?? unavailable(op),
      kind: 'unavailable',
      cause: /\S/,
      requests: 'retried',
      mayHaveApplied: true,
    }),
  },
  {
    name: 'a body that is not JSON',
    fault: { kind: 'malformed' },
    expected: (op) => ({
      sentence: unreadable(op),
      kind: 'invalid_response',
      status: 200,
      cause: /^body is not JSON$/,
      requests: 1,
      mayHaveApplied: true,
    }),
  },
  {
    name: 'JSON that does not match the schema',
    fault: { kind: 'schema', body: { data: 'oops', meta: [] } },
    expected: (op) => ({
      sentence: unreadable(op),
      kind: 'invalid_response',
      status: 200,
      cause: /data/,
      requests: 1,
      mayHaveApplied: true,
    }),
  },
  {
    name: 'an error body with error.code (400)',
    fault: { kind: 'status', status: 400 },
    expected: (op) => ({
      sentence: `CometChat refused ${op.what} (\`ERR_BAD_REQUEST\`): Failed to validate the data sent with the request.`,
      kind: 'bad_request',
      status: 400,
      code: 'ERR_BAD_REQUEST',
      requests: 1,
    }),
  },
  {
    name: 'an error body without error.code (400)',
    fault: {
      kind: 'status',
      status: 400,
      body: { error: { message: 'The request could not be understood' } },
    },
    expected: (op) => ({
      sentence: `CometChat refused ${op.what}: The request could not be understood.`,
      kind: 'bad_request',
      status: 400,
      requests: 1,
    }),
  },
];

/**
 * One sentence and a reference, nothing else; the log line under that reference names the
 * cause. Returns the reference.
 */
async function expectOneSentence(
  h: Harness,
  op: Operation,
  seen: Seen,
  expected: Expected,
): Promise<string> {
  const blocks = (seen.payload.blocks ?? []) as unknown[];
  expect(blocks).toHaveLength(2);
  const [lead] = markupOf({ blocks });
  expect(lead).toBe(`:warning: ${expected.sentence}`);
  const ref = referenceOf(seen.payload) ?? '';
  expect(ref).toMatch(/^[0-9a-f]{10}$/);
  if (op !== EDITOR_CONFIRM) {
    expect(String(seen.payload.text)).toBe(`${expected.sentence} (ref ${ref})`);
  }
  expect(JSON.stringify(seen.payload)).not.toMatch(STACK_TRACE);
  expectNoInjectedMarkup(seen.payload);

  // The editor shows its failure first and then hands the error to the global handler, which
  // writes the line: it may come a moment after what the user saw.
  const logged = await h.slack
    .waitFor(() => logsWithRef(h, ref).find((r) => r.message === 'request failed'), 2000)
    .catch(() => undefined);
  expect(logged, `no 'request failed' line under ${ref}`).toBeDefined();
  expect(logged?.log.level).toBe('error');
  const fields = logged?.cometchat_ops;
  expect(fields).toMatchObject({ kind: expected.kind, operation: op.operation });
  if (expected.status !== undefined) expect(fields?.status).toBe(expected.status);
  if (expected.code !== undefined) expect(fields?.code).toBe(expected.code);
  if (expected.cause) expect(String(fields?.cause)).toMatch(expected.cause);
  // Either an HTTP status or a low-level cause: a reader of the log knows what happened.
  expect(fields?.status !== undefined || typeof fields?.cause === 'string').toBe(true);
  return ref;
}

function requestsFor(h: Harness, op: Operation) {
  return h.sandbox.requests.filter(
    (r) =>
      (op.scope.method === undefined || r.method === op.scope.method) &&
      (op.scope.pathIncludes === undefined || r.path.includes(op.scope.pathIncludes)),
  );
}

describe('fault matrix: CometChat faults through the real app', () => {
  // A fresh service and a fresh Slack for each cell; the app keeps running throughout.
  const h = useSharedHarness(
    { env: FAST_ENV },
    { alsoCheck: expectNoSecretLeaked, resetAfterEach: true },
  );

  for (const op of OPERATIONS) {
    describe(op.name, () => {
      for (const fault of FAULTS) {
        it(fault.name, async () => {
          const expected = fault.expected(op);
          const counted = await updatesCounted(h);
          const seen = await op.run(h, { ...fault.fault, ...op.scope });
          expect(seen.ms, 'told within the budget').toBeLessThan(BUDGET_MS + MARGIN_MS);

          const requests = requestsFor(h, op);
          if (expected.requests === 'retried') expect(requests.length).toBeGreaterThan(1);
          else if (expected.requests !== undefined)
            expect(requests).toHaveLength(expected.requests);

          if (expected.kind === 'success') {
            expect(textOf(seen.payload)).toContain(op.success);
            if (op === EDITOR_CONFIRM) expect((await newestAudit(h)).Outcome).toBe('✔ applied');
            return;
          }
          const ref = await expectOneSentence(h, op, seen, expected);
          if (op === EDITOR_CONFIRM) {
            // CometChat said no: on record as failed. No readable answer after the request may
            // have reached it: on record as unknown, and counted so.
            const audit = await newestAudit(h);
            expect(audit.Outcome).toBe(expected.mayHaveApplied ? '? outcome unknown' : '✘ failed');
            expect(audit.Reference).toBe(ref);
            const outcome = expected.mayHaveApplied ? 'unknown' : 'failed';
            const now = await updatesCounted(h);
            expect(now[outcome] - counted[outcome]).toBe(1);
            expect(now.applied).toBe(counted.applied);
          }
        });
      }
    });
  }
});

/** cometchat_ops_permission_updates_total by outcome, as /metrics would report it now. */
async function updatesCounted(
  h: Harness,
): Promise<Record<'applied' | 'failed' | 'unknown', number>> {
  const text = await h.app.metrics.registry.metrics();
  const count = (outcome: string) =>
    Number(
      new RegExp(`cometchat_ops_permission_updates_total\\{outcome="${outcome}"\\} (\\d+)`).exec(
        text,
      )?.[1] ?? 0,
    );
  return { applied: count('applied'), failed: count('failed'), unknown: count('unknown') };
}

/** An HTTP forwarder to the sandbox that can be shut, leaving a port that refuses connections. */
async function startForwarder() {
  let target: URL | undefined;
  const server: Server = createServer((req, res) => {
    if (!target) return void res.destroy();
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    forwardTo(address: string) {
      target = new URL(address);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('fault matrix: a refused connection', () => {
  let roleHost: Awaited<ReturnType<typeof startForwarder>>;
  const h = useSharedHarness(
    async () => {
      // The call host is a port nothing listens on; the role host a forwarder shut when needed,
      // so the editor can open before its update is refused.
      const closed = await startForwarder();
      await closed.close();
      roleHost = await startForwarder();
      const started = await startHarness({
        env: { ...FAST_ENV, COMETCHAT_API_URL: roleHost.url, COMETCHAT_CALL_API_URL: closed.url },
      });
      roleHost.forwardTo(started.sandbox.apiUrl);
      return {
        ...started,
        stop: async () => {
          await started.stop();
          await roleHost.close();
        },
      };
    },
    { alsoCheck: expectNoSecretLeaked },
  );

  // A refused connection is a wrong address as often as an outage: said both ways, with the
  // settings to check.
  const expected = (op: Operation): Expected => ({
    sentence: refused(op),
    kind: 'misaddressed',
    cause: /ECONNREFUSED/,
  });

  it('call lookup', async () => {
    const seen = await CALL_LOOKUP.run(h);
    expect(seen.ms).toBeLessThan(BUDGET_MS + MARGIN_MS);
    await expectOneSentence(h, CALL_LOOKUP, seen, expected(CALL_LOOKUP));
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('editor confirm (the service goes away after the editor opened)', async () => {
    const { confirmation } = await reviewFlip(h);
    await roleHost.close();
    const started = performance.now();
    const { outcome } = await confirm(h, confirmation);
    const seen = {
      payload: outcome as unknown as Record<string, unknown>,
      ms: performance.now() - started,
    };
    expect(seen.ms).toBeLessThan(BUDGET_MS + MARGIN_MS);
    const ref = await expectOneSentence(h, EDITOR_CONFIRM, seen, expected(EDITOR_CONFIRM));
    expect(puts(h)).toHaveLength(0);
    const audit = await newestAudit(h);
    expect(audit.Outcome).toBe('✘ failed');
    expect(audit.Reference).toBe(ref);
  });

  it('role list', async () => {
    const before = h.sandbox.requests.length;
    const seen = await ROLE_LIST.run(h);
    expect(seen.ms).toBeLessThan(BUDGET_MS + MARGIN_MS);
    await expectOneSentence(h, ROLE_LIST, seen, expected(ROLE_LIST));
    expect(h.sandbox.requests.length).toBe(before);
  });
});
