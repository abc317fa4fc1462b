import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FAILURE_CATEGORIES,
  MODERATION_TRIGGERS,
  SANDBOX_MODERATION_IDS,
  type Sandbox,
  startSandbox,
} from '../../../offline/cometchat-standin/server.ts';

// The stand-in's moderation routes over HTTP, as the live service answers them
// (live-api-notes.md, "Moderation"), its test hooks, and the moderation webhooks it sends.

const API_KEY = 'test-key-moderation';
const { flagged, blocked, reviewed, rules } = SANDBOX_MODERATION_IDS;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: API_KEY });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { apikey: API_KEY },
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${sandbox.apiUrl}/v3/moderation/${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

function codeOf(json: Record<string, unknown>): unknown {
  const error = json.error;
  return typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
}

/** The answer's items' `field` (`message` reads the message's id). */
function ids(json: Record<string, unknown>, field: 'id' | 'message' | 'revisionId'): unknown[] {
  const items: unknown[] = Array.isArray(json.data) ? json.data : [];
  return items.map((item) => {
    const value = typeof item === 'object' && item !== null ? Reflect.get(item, field) : undefined;
    return field === 'message' && typeof value === 'object' && value !== null
      ? Reflect.get(value, 'id')
      : value;
  });
}

describe('the queues', () => {
  it('asks for the key on every moderation route', async () => {
    for (const path of ['flagged-messages', 'blocked-messages', 'reviewed-messages', 'rules']) {
      const { status, json } = await call('GET', path, undefined, {});
      expect([path, status, codeOf(json)]).toEqual([path, 401, 'AUTH_ERR_EMPTY_APIKEY']);
    }
    const wrong = await call(
      'PATCH',
      `flagged-messages/${flagged.image}`,
      { status: 'approved' },
      {
        apikey: 'wrong',
      },
    );
    expect(codeOf(wrong.json)).toBe('AUTH_ERR_APIKEY_NOT_FOUND');
    expect(sandbox.state.moderation.flagged.has(flagged.image)).toBe(true);
  });

  it('lists at least twelve queued messages, newest first, paged by `limit`', async () => {
    const all = await call('GET', 'flagged-messages');
    const stillBlocked = await call('GET', 'blocked-messages');
    expect(ids(all.json, 'id')).toEqual(Object.values(flagged));
    expect(ids(stillBlocked.json, 'message')).toEqual(Object.values(blocked));
    expect(Object.values(flagged).length + Object.values(blocked).length).toBeGreaterThanOrEqual(
      12,
    );
    expect(all.json.meta).toEqual({ current: { limit: 50, count: 7 } });
    const two = await call('GET', 'blocked-messages?limit=2');
    expect(two.json.meta).toEqual({ current: { limit: 2, count: 2 } });
    const bad = await call('GET', 'flagged-messages?limit=0');
    expect([bad.status, codeOf(bad.json)]).toEqual([400, 'ERR_BAD_REQUEST']);
  });

  it('moves a decided flagged message to the reviewed list; a second decision is not found', async () => {
    const first = await call('PATCH', `flagged-messages/${flagged.spamInGroup}`, {
      status: 'disapproved',
    });
    expect(first).toEqual({
      status: 200,
      json: { success: true, message: 'The message 9001 has been disapproved.' },
    });
    const again = await call('PATCH', `flagged-messages/${flagged.spamInGroup}`, {
      status: 'approved',
    });
    expect([again.status, codeOf(again.json)]).toEqual([404, 'ERR_MESSAGE_ID_NOT_FOUND']);
    const list = await call('GET', 'reviewed-messages');
    expect(list.json.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: flagged.spamInGroup, status: 'disapproved', reviewed: true }),
      ]),
    );
    expect(sandbox.moderation.decisions()).toEqual([
      { queue: 'flagged', id: flagged.spamInGroup, body: { status: 'disapproved' } },
      { queue: 'flagged', id: flagged.spamInGroup, body: { status: 'approved' } },
    ]);
  });

  it('answers a flagged decision `{data: {}}` when told to, a blocked one `{data: {success}}`', async () => {
    sandbox.state.moderation.flaggedAnswer = 'data';
    const flaggedAnswer = await call('PATCH', `flagged-messages/${flagged.image}`, {
      status: 'approved',
    });
    expect(flaggedAnswer.json).toEqual({ data: {} });
    const blockedAnswer = await call('PATCH', `blocked-messages/${blocked.spamLink}`, {
      status: 'approved',
    });
    expect(blockedAnswer.json).toEqual({
      data: { success: true, message: 'The message 9101 has been approved.' },
    });
  });

  it('delivers an approved blocked message and lists it reviewed with `blockedAt` as text', async () => {
    await call('PATCH', `blocked-messages/${blocked.emailInGroup}`, {
      status: 'approved',
      reviewed: true,
    });
    const { json } = await call('GET', 'reviewed-messages?limit=1');
    expect(json.data).toEqual([
      expect.objectContaining({
        ruleId: 'pii-guard',
        status: 'approved',
        reviewed: true,
        blockedAt: '1700105900.900',
        message: expect.objectContaining({
          id: blocked.emailInGroup,
          data: expect.objectContaining({ moderation: { status: 'approved' } }),
        }),
      }),
    ]);
    expect(json.data).not.toEqual([expect.objectContaining({ createdAt: expect.anything() })]);
  });

  it('refuses a decision the service would not take, and changes nothing', async () => {
    const cases: [string, unknown][] = [
      [`flagged-messages/${flagged.image}`, { status: 'rejected' }],
      [`blocked-messages/${blocked.profanity}`, { status: 'disapproved' }],
      [`blocked-messages/${blocked.profanity}`, { status: 'approved', reviewed: false }],
      [`blocked-messages/${blocked.profanity}`, ['approved']],
    ];
    for (const [path, body] of cases) {
      const { status, json } = await call('PATCH', path, body);
      expect([path, status, codeOf(json)]).toEqual([path, 400, 'ERR_BAD_REQUEST']);
    }
    expect(sandbox.state.moderation.flagged.has(flagged.image)).toBe(true);
    expect(sandbox.state.moderation.blocked.has(blocked.profanity)).toBe(true);
    // The older form, the status alone, is taken.
    const older = await call('PATCH', `blocked-messages/${blocked.profanity}`, {
      status: 'rejected',
    });
    expect(older.status).toBe(200);
  });

  it('finds no reviewed message in a queue, and serves no decision on a list', async () => {
    const done = await call('PATCH', `blocked-messages/${reviewed.blockedRejected}`, {
      status: 'approved',
    });
    expect(codeOf(done.json)).toBe('ERR_MESSAGE_ID_NOT_FOUND');
    const onList = await call('PATCH', 'flagged-messages', { status: 'approved' });
    expect(onList.status).toBe(405);
  });

  it('answers a 404 fault under moderation with the code of what the path looks up', async () => {
    sandbox.inject({ kind: 'status', status: 404, method: 'PATCH' });
    sandbox.inject({ kind: 'status', status: 404, pathIncludes: '/rules/' });
    const decision = await call('PATCH', `flagged-messages/${flagged.image}`, {
      status: 'approved',
    });
    expect(codeOf(decision.json)).toBe('ERR_MESSAGE_ID_NOT_FOUND');
    const rule = await call('GET', `rules/${rules.profanity}`);
    expect(codeOf(rule.json)).toBe('ERR_RULE_NOT_FOUND');
  });
});

describe('the rules', () => {
  it('lists four rules, one default, with revision ids of the app', async () => {
    const { json } = await call('GET', 'rules?limit=25');
    expect(json.data).toHaveLength(4);
    expect(json.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: rules.defaultKeywords, default: true }),
        expect.objectContaining({
          id: rules.spamLinks,
          default: false,
          revisionId: 'sandbox-app_spam-links_3',
        }),
      ]),
    );
  });

  it('keeps the old revision on a PUT, bumps the id, and refuses a bad body', async () => {
    const body = {
      id: rules.piiGuard,
      name: 'PII',
      enabled: false,
      action: ['dropMessage'],
      filters: [],
      conditions: [{ type: 'pattern', pattern: 'email' }],
    };
    const put = await call('PUT', `rules/${rules.piiGuard}`, body);
    expect(put.json.data).toMatchObject({
      ...body,
      active: false,
      revisionId: 'sandbox-app_pii-guard_2',
    });
    expect(put.json.data).not.toHaveProperty('description');
    const revisions = await call('GET', `rules/${rules.piiGuard}/revisions`);
    expect(ids(revisions.json, 'revisionId')).toEqual([
      'sandbox-app_pii-guard_2',
      'sandbox-app_pii-guard_1',
    ]);
    for (const bad of [
      { ...body, id: 'other' },
      { ...body, conditions: [] },
      { ...body, enabled: 'yes' },
    ]) {
      const refused = await call('PUT', `rules/${rules.piiGuard}`, bad);
      expect([refused.status, codeOf(refused.json)]).toEqual([400, 'ERR_BAD_REQUEST']);
    }
    const unknown = await call('PUT', 'rules/new-rule', { ...body, id: 'new-rule' });
    expect(codeOf(unknown.json)).toBe('ERR_RULE_NOT_FOUND');
    expect(sandbox.state.moderation.rules.get(rules.piiGuard)).toHaveLength(2);
  });

  it('changes a rule as the dashboard would, and goes back to the seed on reset', async () => {
    const edited = sandbox.moderation.editRule(rules.defaultKeywords, { enabled: false });
    expect(edited).toMatchObject({
      id: rules.defaultKeywords,
      enabled: false,
      active: false,
      default: true,
      description: "CometChat's own word list",
      revisionId: 'sandbox-app_default-keyword-filter_2',
    });
    expect(sandbox.requests).toHaveLength(0);
    expect(() => sandbox.moderation.editRule('nope', {})).toThrow(/no rule "nope"/);
    sandbox.reset();
    const { json } = await call('GET', `rules/${rules.defaultKeywords}`);
    expect(json.data).toMatchObject({ revisionId: 'sandbox-app_default-keyword-filter_1' });
  });

  it('gives the second app rules of its own, some sharing ids with other content', async () => {
    const second = await startSandbox({ apiKey: API_KEY, seed: 'second' });
    try {
      const response = await fetch(`${second.apiUrl}/v3/moderation/rules`, {
        headers: { apikey: API_KEY },
      });
      const { data } = (await response.json()) as { data: { id: string; revisionId: string }[] };
      expect(data.map((rule) => rule.id)).toEqual([
        'default-keyword-filter',
        'profanity',
        'spam-links',
        'vip-greeting-guard',
      ]);
      expect(data[1]?.revisionId).toBe('sandbox-app-2_profanity_1');
    } finally {
      await second.close();
    }
  });
});

describe('moderation webhooks', () => {
  it('builds each trigger from the seed, fields absent rather than null', () => {
    const webhooks = sandbox.webhooks;
    expect(webhooks.moderationData('moderation_engine_blocked', blocked.spamLink)).toEqual({
      message: expect.objectContaining({
        id: blocked.spamLink,
        sender: 'banned-spammer',
        data: expect.objectContaining({ moderation: { status: 'disapproved' } }),
      }),
    });
    expect(webhooks.moderationData('moderation_engine_approved', flagged.image)).toMatchObject({
      message: { id: flagged.image, data: { moderation: { status: 'approved' } } },
    });
    expect(webhooks.moderationData('moderation_manual_approved', blocked.profanity)).toEqual({
      message: expect.objectContaining({ id: blocked.profanity }),
      moderation: [
        {
          condition: expect.objectContaining({
            message: 'Contains a word from the list profanity-en',
          }),
          rule: {
            id: 'profanity',
            name: 'Profanity',
            revisionId: 'sandbox-app_profanity_2',
            action: ['blockMessage'],
            blockedAt: 1_700_106_500,
          },
        },
      ],
      reviewed: true,
    });
    expect(() => webhooks.moderationData('moderation_manual_approved', flagged.image)).toThrow(
      /no rule blocked/,
    );
    expect(() => webhooks.moderationData('moderation_engine_blocked', 'nope')).toThrow();
  });

  it('says what failed in an engine, by category, and no text', () => {
    for (const category of FAILURE_CATEGORIES) {
      const data = sandbox.webhooks.moderationData('moderation_engine_failed', flagged.cardNumber, {
        category,
        ruleId: rules.spamLinks,
      });
      expect(JSON.stringify(data)).not.toContain('4111');
      expect(JSON.stringify(data)).not.toContain('null');
      expect(data).toMatchObject({
        resource: { id: flagged.cardNumber, sender: 'customer-1001', receiverType: 'group' },
        contentType: 'text',
        outcome: 'approved',
        completedAt: 1_700_103_601,
        failures: [
          {
            category,
            failedAt: 1_700_103_601,
            context: {
              engine: 'custom_api',
              setting: 'approve-message',
              rule: {
                id: 'spam-links',
                name: 'Spam links',
                revisionId: 'sandbox-app_spam-links_3',
              },
            },
          },
        ],
      });
    }
    const dropped = sandbox.webhooks.moderationData(
      'moderation_engine_failed',
      blocked.phoneNumber,
      {
        engine: 'openai',
        category: 'http_5xx',
      },
    );
    expect(dropped).toMatchObject({
      outcome: 'blocked',
      failures: [
        {
          httpStatus: 503,
          context: { engine: 'openai', setting: 'drop-message', rule: { id: 'pii-guard' } },
        },
      ],
    });
    expect(dropped).not.toHaveProperty('failures.0.timeoutMs');
  });

  it('sends each trigger on demand in the documented envelope', async () => {
    const arrivals: unknown[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        arrivals.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.end('ok');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      sandbox.webhooks.configure({ url: `http://127.0.0.1:${port}/hook`, id: 'wh-1' });
      for (const trigger of MODERATION_TRIGGERS) {
        const answer = await sandbox.webhooks.sendModeration(trigger, blocked.spamLink);
        expect(answer).toEqual({ status: 200, body: 'ok' });
      }
      expect(arrivals).toHaveLength(4);
      expect(arrivals[0]).toEqual({
        trigger: 'moderation_engine_approved',
        data: expect.objectContaining({ message: expect.any(Object) }),
        appId: 'sandbox-app',
        region: 'us',
        webhook: 'wh-1',
      });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
