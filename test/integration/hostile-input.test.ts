import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import { confirm, isLoadingView } from '../../offline/stack/editor-steps.ts';
import { OFFLINE_OPERATOR } from '../../offline/stack/offline-stack.ts';
import { uidProblem } from '../../src/cometchat/id-rules.ts';
import { findSessionIds } from '../../src/features/calls/call-lookup.ts';
import { readCommand } from '../../src/features/command.ts';
import { SUBCOMMANDS } from '../../src/features/index.ts';
import {
  expectNoInjectedMarkup,
  type Harness,
  markupOf,
  signedTestValue,
  textOf,
} from './harness.ts';
import { isHolderCount, resetServices, reviewFlip, useSharedHarness } from './support.ts';

// Hostile input, generated: what a person types, what comes back in an interaction, and what
// the service answers. Whatever it is, the app stays up, asks CometChat only for the one
// resource meant, keeps every reply within Block Kit's limits, never lets text from outside
// mention or link, and says plainly when it cannot use what it was given.

const RUNS = { numRuns: 40 };

/** The session id a `call` command was read as. */
const sessionIdOf = (parsed: unknown): string =>
  String((parsed as { sessionId?: unknown }).sessionId);
const INTERNAL = 'Something went wrong inside the app';
const RECORDINGS = 'https://recordings.example/';

/** Pieces of trouble: traversal, encoded separators, mrkdwn and mentions, controls, odd unicode. */
const TROUBLE = [
  '../',
  '..',
  '.',
  '..%2F',
  '%2e%2e',
  '%2F',
  '%2f',
  '%252F',
  '%00',
  '/',
  '\\',
  '?',
  '#',
  '&',
  '&amp;',
  '&lt;!channel&gt;',
  '<!channel>',
  '<!here>',
  '<!subteam^S123>',
  '<@U123>',
  '<#C123>',
  '<https://x|y>',
  '<javascript:alert(1)|click>',
  '*',
  '_',
  '~',
  '`',
  '```',
  '>',
  '&gt;',
  '\u0000',
  '\u0007',
  '\u001b[31m',
  '\n',
  '\r\n',
  '\t',
  '\u00a0',
  '\u200b',
  '\u202e',
  '\u2028',
  '\ufeff',
  'é',
  '🛡️',
  '👨‍👩‍👧',
  '日本語',
  'Z̤͔ͧ̑̓',
  'default',
  'v1.us.sandbox-app.1700000000abcdef0001',
  ' ',
];

const piece = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TROUBLE) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
);
const shortHostile = fc.array(piece, { maxLength: 10 }).map((parts) => parts.join(''));
const longHostile = fc
  .tuple(fc.constantFrom(...TROUBLE, 'a'), fc.integer({ min: 101, max: 6000 }))
  .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length));
const hostile = fc.oneof(
  { weight: 5, arbitrary: shortHostile },
  { weight: 1, arbitrary: longHostile },
);
/** Lone UTF-16 surrogates: impossible in a form, possible in JSON (`\ud800`). */
const loneSurrogate = fc
  .integer({ min: 0xd800, max: 0xdfff })
  .map((unit) => `v1.${String.fromCharCode(unit)}`);

/** Everything that reached Slack: messages (accepted or refused), views, view answers. */
function everythingShown(h: Harness): unknown[] {
  return [
    ...h.messages(),
    ...h.slack.refusedResponses.map((r) => r.body),
    ...h.views(),
    ...h.slack.acks.map((a) => (a.payload as { view?: unknown } | undefined)?.view),
  ];
}

/**
 * CometChat was asked only for what was meant: the role list (with the users holding each role
 * and the permission definitions), or one call whose id is exactly
 * one of `sessionIds`, encoded as a single path segment that URL parsing leaves alone.
 */
function expectOnlyIntendedRequests(
  h: Harness,
  allowed: { roles?: boolean; sessionIds?: readonly string[] },
): void {
  for (const request of h.sandbox.requests) {
    expect(request.method, request.path).toBe('GET');
    // The editor reads the permission definitions too (the catalogue from the service).
    const definitions = request.path === '/v3/roles/default/permissions';
    if (request.path === '/v3/roles' || isHolderCount(request) || definitions) {
      expect(allowed.roles, 'an unexpected role list request').toBe(true);
      expect(request.host).toBe('api');
      continue;
    }
    const match = /^\/v3\/calls\/([^/]+)$/.exec(request.path);
    expect(match, `request to ${request.path}`).not.toBeNull();
    expect(request.host).toBe('call');
    expect(new URL(request.path, 'http://x').pathname).toBe(request.path);
    const id = decodeURIComponent(match?.[1] ?? '');
    expect(allowed.sessionIds ?? []).toContain(id);
  }
}

/**
 * Within Block Kit's limits, no mention or link from outside, never the internal-fault sentence.
 * The audit list names who made a change as a mention on purpose: that one is the app's own.
 */
function expectSafeReplies(h: Harness, allowedLinks: readonly string[] = []): void {
  h.checkAllPayloads();
  const ownMention = `<@${OFFLINE_OPERATOR}>`;
  for (const shown of everythingShown(h)) {
    if (shown === undefined) continue;
    const payload: unknown = JSON.parse(JSON.stringify(shown).replaceAll(ownMention, '@operator'));
    expectNoInjectedMarkup(payload, allowedLinks);
    expect(textOf(payload)).not.toContain(INTERNAL);
  }
}

/**
 * Resolves once the app has answered: a reply on a response_url, or a modal with its content
 * (opened filled in, or opened on "Loading…" and then updated).
 */
/**
 * Waits until the app has asked the sandbox nothing new for a moment: work a click started after
 * its answer (an editor's remaining role pages) must not land in the next run's record.
 */
async function quiet(h: Harness, stillMs = 100): Promise<void> {
  for (let seen = -1; seen !== h.sandbox.requests.length; ) {
    seen = h.sandbox.requests.length;
    await new Promise((resolve) => setTimeout(resolve, stillMs));
  }
}

function answered(h: Harness, mark: number, timeoutMs = 5000): Promise<true> {
  return h.slack.waitFor(
    () =>
      h.slack.responses.length > 0 ||
      h.slack.refusedResponses.length > 0 ||
      h.slack.calls
        .slice(mark)
        .some(
          (c) =>
            c.method === 'views.update' ||
            (c.method === 'views.open' && c.answer && !isLoadingView(c.args.view)),
        ) ||
      undefined,
    timeoutMs,
  );
}

describe('hostile input through the real app', () => {
  const h = useSharedHarness({ env: { COMETCHAT_TIMEOUT_MS: '500', COMETCHAT_BUDGET_MS: '1500' } });

  it('slash-command text', async () => {
    const text = fc
      .tuple(
        fc.constantFrom('', 'roles ', 'perms ', 'permissions ', 'call ', 'audit ', 'help ', 'x'),
        hostile,
        fc.option(fc.tuple(fc.constantFrom(' as ', ' ', ' AS '), hostile), { nil: undefined }),
      )
      .map(([verb, arg, rest]) => `${verb}${arg}${rest ? rest.join('') : ''}`);
    await fc.assert(
      fc.asyncProperty(text, async (input) => {
        resetServices(h);
        // What the app receives: a form carries well-formed text only (a lone surrogate, as a
        // long string cut anywhere may end with, arrives as U+FFFD).
        const read = readCommand(
          new URLSearchParams({ input }).get('input') ?? '',
          [],
          SUBCOMMANDS,
        );
        const sub = 'problem' in read ? { name: 'invalid' } : read;
        const sent = await h.driver.command(input);
        expect(sent.status).toBe(200);
        expect(sent.elapsedMs).toBeLessThan(3000);
        await answered(h, 0);
        // The editor answers in a modal; everything else in the channel.
        if (sub.name === 'perms') {
          expect(h.slack.calls.filter((c) => c.method === 'views.open')).toHaveLength(1);
        } else {
          expect(h.slack.responses).toHaveLength(1);
        }
        expectOnlyIntendedRequests(h, {
          roles: sub.name === 'roles' || sub.name === 'perms',
          sessionIds: 'parsed' in sub && sub.name === 'call' ? [sessionIdOf(sub.parsed)] : [],
        });
        expectSafeReplies(h);
        if (sub.name === 'invalid') {
          // Said plainly, under a reference, and logged as the person's mistake, not a fault.
          const reply = h.slack.responses[0]?.body;
          expect(markupOf({ blocks: reply?.blocks })[0]).toMatch(/^:warning: \S/);
          expect(textOf(reply)).toMatch(/Reference: `[0-9a-f]{10}`/);
        }
        expect(h.logs.errors()).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it('button values that were tampered with', async () => {
    const sessionId = fc.oneof(hostile, loneSurrogate);
    // Tampered content signed as the app signs it reaches the listener's own checks; the same
    // content unsigned, and unsigned text, are refused by the signature. `sessionIds`: the calls
    // the value may ask for.
    const signed = (v: Record<string, unknown>) => signedTestValue(h, v);
    const call = fc.record({
      sessionId,
      onBehalfOf: fc.option(hostile, { nil: undefined }),
      page: fc.constant(1),
    });
    const value = fc.oneof(
      hostile.map((raw) => ({ raw, sessionIds: [] as string[] })),
      fc
        .record({ page: fc.oneof(fc.integer(), fc.double(), hostile) })
        .map((v) => ({ raw: signed(v), sessionIds: [] as string[] })),
      call.map((v) => ({ raw: signed(v), sessionIds: [v.sessionId] })),
      call.map((v) => ({ raw: JSON.stringify(v), sessionIds: [] as string[] })),
      fc
        .record({ role: hostile, page: fc.constant(1) })
        .map((v) => ({ raw: signed(v), sessionIds: [] as string[] })),
    );
    const action = fc.constantFrom(
      'roles_page_next',
      'share_roles',
      'share_call',
      'call_participants',
      'edit_permissions',
      'audit_page_next',
    );
    await fc.assert(
      fc.asyncProperty(action, value, async (actionId, { raw, sessionIds }) => {
        resetServices(h);
        const sent = await h.driver.interaction(h.driver.blockAction({ actionId, value: raw }));
        expect(sent.status).toBe(200);
        expect(sent.elapsedMs).toBeLessThan(3000);
        await answered(h, 0);
        await quiet(h);
        // Whatever a button carried, the request is one of these and nothing else.
        expectOnlyIntendedRequests(h, {
          roles: ['roles_page_next', 'share_roles', 'edit_permissions'].includes(actionId),
          sessionIds,
        });
        expectSafeReplies(h);
      }),
      RUNS,
    );
  });

  it('"Look up call" on a message with hostile text', async () => {
    const text = fc
      .array(fc.oneof(hostile, fc.constantFrom(SANDBOX_SESSION_IDS.audioEnded, 'v1.us.a.b')), {
        maxLength: 6,
      })
      .map((parts) => parts.join(' '));
    await fc.assert(
      fc.asyncProperty(text, async (message) => {
        resetServices(h);
        const ids = findSessionIds(message);
        const sent = await h.driver.interaction(
          h.driver.messageShortcut({
            callbackId: 'lookup_call_message',
            message: { text: message, ts: '1700000000.000200' },
          }),
        );
        expect(sent.status).toBe(200);
        if (ids.length > 0) {
          await h.slack.waitFor(() => h.slack.responses.length >= ids.length || undefined);
        } else {
          // No session id: the search form opens, any uid it fills in one the app could send.
          const opened = await h.slack.nextCall('views.open');
          const prefilled = JSON.stringify(opened.args.view).match(/"initial_value":"([^"]*)"/);
          if (prefilled?.[1] !== undefined) expect(uidProblem(prefilled[1])).toBeUndefined();
        }
        expectOnlyIntendedRequests(h, { sessionIds: ids });
        expect(h.sandbox.requests.length).toBeLessThanOrEqual(3);
        expectSafeReplies(h);
      }),
      RUNS,
    );
  });

  it('the "Look up a call" form with hostile fields', async () => {
    const field = fc.oneof(hostile, fc.constantFrom(SANDBOX_SESSION_IDS.customId, ''));
    await fc.assert(
      fc.asyncProperty(field, fc.option(hostile, { nil: undefined }), async (session, uid) => {
        resetServices(h);
        await h.driver.interaction(h.driver.globalShortcut({ callbackId: 'lookup_call_global' }));
        const opened = await h.slack.nextCall('views.open');
        const view = h.slack.views.get(
          String((h.slack.views.values().next().value as { id: string }).id),
        );
        if (!view) throw new Error(`no view after ${opened.method}`);
        const mark = h.slack.calls.length;
        const sent = await h.driver.interaction(
          h.driver.viewSubmission({
            view,
            values: {
              lookup_session: { session_id: { type: 'plain_text_input', value: session } },
              lookup_on_behalf_of: {
                on_behalf_of: { type: 'plain_text_input', value: uid ?? null },
              },
            },
          }),
        );
        expect(sent.status).toBe(200);
        expect(sent.elapsedMs).toBeLessThan(3000);
        const answer = JSON.parse(sent.body) as {
          response_action: string;
          errors?: Record<string, string>;
        };
        if (answer.response_action === 'errors') {
          // A field that cannot be used is named, with a sentence, and nothing is asked.
          for (const message of Object.values(answer.errors ?? {})) expect(message).toMatch(/\w/);
          expect(h.sandbox.requests).toHaveLength(0);
        } else {
          expect(answer.response_action).toBe('update');
          await h.slack.nextCall('views.update', mark);
        }
        expectOnlyIntendedRequests(h, { sessionIds: [session.trim()] });
        expectSafeReplies(h);
      }),
      { numRuns: 30 },
    );
  }, 300_000);
});

// What the service sends back is outside data too.
const roleRecord = fc.record(
  {
    // The schema wants a non-empty id; past that, anything the service might send.
    role: fc.oneof(
      { weight: 3, arbitrary: fc.stringMatching(/^[a-z0-9_-]{1,100}$/) },
      { weight: 1, arbitrary: hostile.filter((id) => id.length > 0) },
    ),
    name: hostile,
    description: hostile,
    metadata: fc.dictionary(
      hostile,
      fc.oneof(hostile, fc.integer(), fc.array(hostile, { maxLength: 3 })),
      {
        maxKeys: 8,
      },
    ),
    settings: fc.dictionary(hostile, hostile, { maxKeys: 3 }),
    createdAt: fc.integer({ min: 0, max: 4_000_000_000 }),
  },
  { requiredKeys: ['role', 'name', 'description'] },
);

const person = fc.record(
  {
    uid: hostile,
    name: hostile,
    avatar: fc.oneof(hostile, fc.constant('https://img.example/a.png')),
  },
  { requiredKeys: ['uid'] },
);

const callRecord = fc.record(
  {
    sessionId: hostile,
    type: hostile,
    mode: hostile,
    status: fc.oneof(fc.constantFrom('ended', 'ongoing'), hostile),
    receiverType: hostile,
    initiator: hostile,
    receiver: hostile,
    totalParticipants: fc.integer({ min: 0, max: 1000 }),
    hasRecording: fc.boolean(),
    participants: fc.array(
      fc.record(
        { uid: hostile, name: hostile, avatar: hostile, state: hostile, deviceId: hostile },
        { requiredKeys: ['uid'] },
      ),
      { maxLength: 14 },
    ),
    recordings: fc.array(
      fc.record({
        rid: hostile,
        recording_url: fc.oneof(
          hostile,
          hostile.map((path) => `${RECORDINGS}${encodeURI(path.replace(/[\ud800-\udfff]/g, ''))}`),
          fc.constantFrom('javascript:alert(1)', 'slack://open', `${RECORDINGS}x|<!channel>`),
        ),
      }),
      { maxLength: 3 },
    ),
    tags: fc.array(hostile, { maxLength: 3 }),
    data: fc.record({
      entities: fc.record({
        initiator: fc.record({ entity: person }),
        receiver: fc.record({ entity: person }),
      }),
    }),
  },
  { requiredKeys: ['sessionId'] },
);

describe('hostile data from the service', () => {
  const h = useSharedHarness({ env: { COMETCHAT_TIMEOUT_MS: '500', COMETCHAT_BUDGET_MS: '1500' } });

  it('role names, ids, descriptions, settings and metadata', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(roleRecord, { minLength: 1, maxLength: 10 }), async (roles) => {
        resetServices(h);
        const pagination = {
          total: roles.length,
          count: roles.length,
          per_page: 10,
          current_page: 1,
          total_pages: 1,
        };
        h.sandbox.inject({
          kind: 'schema',
          pathIncludes: '/v3/roles',
          body: { data: roles, meta: { pagination } },
        });
        await h.driver.command('roles');
        await answered(h, 0);
        expectSafeReplies(h);
        expect(textOf(h.slack.responses[0]?.body)).toContain('CometChat roles');
      }),
      { numRuns: 30 },
    );
  }, 300_000);

  it('call records: people, states, recordings, ids', async () => {
    await fc.assert(
      fc.asyncProperty(callRecord, fc.boolean(), async (record, asArray) => {
        resetServices(h);
        h.sandbox.inject({
          kind: 'schema',
          pathIncludes: '/v3/calls/',
          body: { data: asArray ? [record] : record },
        });
        await h.driver.command(`call ${SANDBOX_SESSION_IDS.audioEnded}`);
        await answered(h, 0);
        expectSafeReplies(h, [RECORDINGS]);
        expect(h.slack.responses).toHaveLength(1);
      }),
      { numRuns: 30 },
    );
  }, 300_000);

  it('the update answer: unknown permission keys, values and per-key messages', async () => {
    const answer = fc.record({
      permissions: fc.dictionary(
        fc.oneof(hostile, fc.constantFrom('sendMessage', 'sendMessage.allowedMessageTypes')),
        fc.oneof(hostile, fc.array(hostile, { maxLength: 4 }), fc.constant(null)),
        { maxKeys: 12 },
      ),
      results: fc.dictionary(
        fc.oneof(hostile, fc.constant('sendMessage')),
        fc.record({ success: fc.boolean(), message: hostile }),
        { maxKeys: 3 },
      ),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(answer, async ({ permissions, results }) => {
        resetServices(h);
        // A role of its own per run: the app keeps each answer as that role's baseline.
        run += 1;
        const role = `hostile-${run}`;
        h.sandbox.state.roles.push({ role, name: role, description: '', createdAt: 1_700_000_000 });
        // The answer replaces the service's: the change itself does not matter here, only that
        // there is one (the last answer is the editor's new baseline).
        const { confirmation } = await reviewFlip(h, 'editMessage', role);
        h.sandbox.inject({
          kind: 'schema',
          method: 'PUT',
          body: { data: { ...results, permissions } },
        });
        const { outcome } = await confirm(h, confirmation);
        expect(textOf(outcome)).toMatch(/Resulting permissions|cannot read/);
        await h.driver.command(`audit ${role}`);
        await h.slack.nextResponse(0);
        expectSafeReplies(h);
      }),
      { numRuns: 15 },
    );
  }, 60_000);

  it('error bodies: codes and messages', async () => {
    const body = fc.record(
      {
        message: hostile,
        devMessage: hostile,
        code: fc.oneof(hostile, fc.constantFrom('ERR_BAD_REQUEST', '<!channel>')),
        details: fc.dictionary(hostile, fc.array(hostile, { maxLength: 2 }), { maxKeys: 3 }),
      },
      { requiredKeys: [] },
    );
    const status = fc.constantFrom(400, 401, 403, 404, 409, 429, 500, 503);
    await fc.assert(
      fc.asyncProperty(body, status, async (error, code) => {
        resetServices(h);
        h.sandbox.inject({
          kind: 'status',
          status: code,
          body: { error },
          headers: { 'retry-after': '60' },
          times: 5,
        });
        await h.driver.command(`call ${SANDBOX_SESSION_IDS.audioEnded}`);
        const reply = (await h.slack.nextResponse(0)).body;
        expect(markupOf({ blocks: reply.blocks })[0]).toMatch(/^:warning: CometChat\b/);
        expectSafeReplies(h);
      }),
      { numRuns: 30 },
    );
  }, 300_000);
});
