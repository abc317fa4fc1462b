import { describe, expect, it } from 'vitest';
import { SANDBOX_MODERATION_IDS } from '../../offline/cometchat-standin/server.ts';
import { failure, only, useSandboxClient } from './client-harness.ts';

// The client's moderation operations against the stand-in over loopback: what is sent (one
// request each, on the REST API host, with the key), how every documented shape of an answer is
// read (the stand-in serves some; a `schema` fault sends the others), and how failures read.
// The seed's messages and rules are described in offline/cometchat-standin/README.md.

const { sandbox: standIn, client: clientOf } = useSandboxClient();
const { flagged, blocked, rules } = SANDBOX_MODERATION_IDS;

const message = {
  id: '5',
  conversationId: 'group_lobby',
  sender: 'alice',
  receiverType: 'group',
  receiver: 'lobby',
  category: 'message',
  type: 'text',
  data: { text: 'hello' },
  sentAt: 1_700_000_000,
};

describe('listFlaggedMessages', () => {
  it('GETs the flagged messages on the REST API host and reads them, newest first', async () => {
    const items = await clientOf().listFlaggedMessages();
    expect(items.map((item) => item.message.id)).toEqual(Object.values(flagged));
    const request = only(standIn().requests);
    expect(request).toMatchObject({
      method: 'GET',
      host: 'api',
      path: '/v3/moderation/flagged-messages',
      query: {},
    });
    expect(request.headers.apikey).toBeDefined();
    expect(items[0]).toEqual({
      queue: 'flagged',
      message: {
        id: flagged.spamInGroup,
        conversationId: 'group_support-lobby',
        sender: 'banned-spammer',
        receiverType: 'group',
        receiver: 'support-lobby',
        category: 'message',
        type: 'text',
        text: 'Free crypto for everyone at https://spam.example/claim <!channel>',
        sentAt: 1_700_107_200,
      },
      flags: [
        {
          uid: 'cometchat-uid-1',
          name: 'Andrew Joseph',
          reasonId: 'spam',
          reasonName: 'Spam',
          remark: 'Third time today',
          flaggedAt: 1_700_107_300,
        },
        expect.objectContaining({ uid: 'cometchat-uid-2', remark: undefined }),
        expect.objectContaining({ uid: 'customer-1001', reasonId: 'scam' }),
      ],
      flaggedCount: 3,
    });
  });

  it('sends the page size as `limit` and reads what the seed leaves out', async () => {
    const items = await clientOf().listFlaggedMessages({ limit: 5 });
    expect(only(standIn().requests).query).toEqual({ limit: '5' });
    expect(items).toHaveLength(5);
    const byId = new Map(items.map((item) => [item.message.id, item]));
    // Two flags shown, four counted.
    expect(byId.get(flagged.markupInGroup)).toMatchObject({ flaggedCount: 4 });
    // An image has no text; its caption-like data is not shown as one.
    expect(byId.get(flagged.image)?.message).toMatchObject({ type: 'image', text: undefined });
    expect(byId.get(flagged.bareFlag)?.flags).toEqual([
      {
        uid: 'support-agent-2',
        name: undefined,
        reasonId: undefined,
        reasonName: undefined,
        remark: undefined,
        flaggedAt: 1_700_104_900,
      },
    ]);
  });

  it('reads nulls, numeric ids, times as text, no flags and no conversation id', async () => {
    standIn().inject({
      kind: 'schema',
      body: {
        data: [
          {
            ...message,
            id: 77,
            conversationId: null,
            receiverType: 'user',
            receiver: 'bob',
            data: { text: 'hi', moderation: null },
            sentAt: '1700000000.25',
            flaggedBy: null,
          },
        ],
        meta: { current: { limit: 50, count: 1 } },
      },
    });
    const [item] = await clientOf().listFlaggedMessages();
    expect(item).toEqual({
      queue: 'flagged',
      message: {
        id: '77',
        conversationId: 'alice_user_bob',
        sender: 'alice',
        receiverType: 'user',
        receiver: 'bob',
        category: 'message',
        type: 'text',
        text: 'hi',
        sentAt: 1_700_000_000,
      },
      flags: [],
      flaggedCount: 0,
    });
  });

  it('shows no text for a message that is not a text message', async () => {
    standIn().inject({
      kind: 'schema',
      body: { data: [{ ...message, category: 'custom', type: 'poll', flaggedBy: [] }] },
    });
    const [item] = await clientOf().listFlaggedMessages();
    expect(item?.message).toMatchObject({ category: 'custom', type: 'poll', text: undefined });
  });

  it('rejects an answer without the list as invalid_response', async () => {
    standIn().inject({ kind: 'schema', body: { data: { items: [] } } });
    const error = await failure(clientOf().listFlaggedMessages());
    expect(error).toMatchObject({ kind: 'invalid_response', operation: 'listFlaggedMessages' });
  });
});

describe('decideFlaggedMessage', () => {
  it('PATCHes the status once and reads `{success, message}`', async () => {
    await clientOf().decideFlaggedMessage(flagged.abusiveDirect, 'disapproved');
    const request = only(standIn().requests);
    expect(request).toMatchObject({
      method: 'PATCH',
      host: 'api',
      path: `/v3/moderation/flagged-messages/${flagged.abusiveDirect}`,
      body: { status: 'disapproved' },
    });
    expect(standIn().moderation.decisions()).toEqual([
      { queue: 'flagged', id: flagged.abusiveDirect, body: { status: 'disapproved' } },
    ]);
    expect(standIn().state.moderation.flagged.has(flagged.abusiveDirect)).toBe(false);
  });

  it('reads the other documented answer, `{data: {}}`', async () => {
    standIn().state.moderation.flaggedAnswer = 'data';
    await expect(
      clientOf().decideFlaggedMessage(flagged.spamInGroup, 'approved'),
    ).resolves.toBeUndefined();
    expect(only(standIn().requests).body).toEqual({ status: 'approved' });
  });

  it('reads `{data: {success, message}}` too', async () => {
    standIn().inject({
      kind: 'schema',
      body: { data: { success: true, message: 'The message has been approved.' } },
    });
    await expect(clientOf().decideFlaggedMessage('1', 'approved')).resolves.toBeUndefined();
  });

  it('does not take `success: false` as a decision made', async () => {
    standIn().inject({ kind: 'schema', body: { success: false, message: 'Not reviewed.' } });
    const error = await failure(clientOf().decideFlaggedMessage('1', 'approved'));
    expect(error).toMatchObject({ kind: 'invalid_response', mayHaveReached: true });
  });

  it('is not_found (ERR_MESSAGE_ID_NOT_FOUND) for an unknown or already reviewed message', async () => {
    const unknown = await failure(clientOf().decideFlaggedMessage('404404', 'approved'));
    expect(unknown).toMatchObject({
      kind: 'not_found',
      status: 404,
      serviceCode: 'ERR_MESSAGE_ID_NOT_FOUND',
      operation: 'decideFlaggedMessage',
    });
    await clientOf().decideFlaggedMessage(flagged.cardNumber, 'disapproved');
    const again = await failure(clientOf().decideFlaggedMessage(flagged.cardNumber, 'approved'));
    expect(again).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_MESSAGE_ID_NOT_FOUND' });
  });

  it('sends no second PATCH when the first went unanswered', async () => {
    standIn().inject({ kind: 'status', status: 503, method: 'PATCH' });
    const error = await failure(clientOf().decideFlaggedMessage(flagged.image, 'approved'));
    expect(error).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(standIn().moderation.decisions()).toHaveLength(1);
  });

  it('keeps an id inside its path segment, and refuses a dot segment unsent', async () => {
    await failure(clientOf().decideFlaggedMessage('a/b?c', 'approved'));
    expect(only(standIn().requests).path).toBe('/v3/moderation/flagged-messages/a%2Fb%3Fc');
    const refused = await failure(clientOf().decideFlaggedMessage('..', 'approved'));
    expect(refused).toMatchObject({ kind: 'bad_request' });
    expect(standIn().requests).toHaveLength(1);
  });
});

describe('listBlockedMessages', () => {
  it('GETs the blocked messages and reads the rule, the condition and the actions', async () => {
    const items = await clientOf().listBlockedMessages();
    expect(only(standIn().requests)).toMatchObject({
      method: 'GET',
      path: '/v3/moderation/blocked-messages',
    });
    expect(items.map((item) => item.message.id)).toEqual(Object.values(blocked));
    expect(items[0]).toEqual({
      queue: 'blocked',
      message: {
        id: blocked.spamLink,
        conversationId: 'group_support-lobby',
        sender: 'banned-spammer',
        receiverType: 'group',
        receiver: 'support-lobby',
        category: 'message',
        type: 'text',
        text: 'Buy 10k followers cheap at https://followers.example',
        sentAt: 1_700_107_000,
      },
      rule: { id: 'spam-links', name: 'Spam links', revisionId: 'sandbox-app_spam-links_3' },
      conditionMessage: 'Contains a link to a blocked domain',
      actions: ['blockMessage'],
      blockedAt: 1_700_107_000,
    });
  });

  it('reads `blockedAt` as a string with a fraction, and an item with fields absent', async () => {
    standIn().inject({
      kind: 'schema',
      body: {
        data: [
          {
            ruleId: 'r1',
            ruleName: 'Rule one',
            message,
            blockedAt: '1700000100.987',
          },
          {
            ruleId: 'r2',
            message: { ...message, id: '6' },
            action: null,
            createdAt: 1_700_000_200,
          },
        ],
      },
    });
    const items = await clientOf().listBlockedMessages({ limit: 2 });
    expect(only(standIn().requests).query).toEqual({ limit: '2' });
    expect(items[0]).toMatchObject({
      rule: { id: 'r1', name: 'Rule one', revisionId: undefined },
      conditionMessage: undefined,
      actions: [],
      blockedAt: 1_700_000_100,
    });
    expect(items[1]).toMatchObject({ rule: { id: 'r2', name: '' }, blockedAt: 1_700_000_200 });
  });
});

describe('decideBlockedMessage', () => {
  it('PATCHes the status with `reviewed` and reads `{data: {success, message}}`', async () => {
    await clientOf().decideBlockedMessage(blocked.profanity, 'rejected');
    expect(only(standIn().requests)).toMatchObject({
      method: 'PATCH',
      path: `/v3/moderation/blocked-messages/${blocked.profanity}`,
      body: { status: 'rejected', reviewed: true },
    });
    expect(standIn().state.moderation.blocked.has(blocked.profanity)).toBe(false);
  });

  it('reads `{success, message}` and `{data: {}}` too', async () => {
    standIn().inject({ kind: 'schema', body: { success: true, message: 'ok' } });
    await expect(clientOf().decideBlockedMessage('1', 'approved')).resolves.toBeUndefined();
    standIn().inject({ kind: 'schema', body: { data: {} } });
    await expect(clientOf().decideBlockedMessage('1', 'approved')).resolves.toBeUndefined();
  });

  it('is not_found for a message already delivered', async () => {
    await clientOf().decideBlockedMessage(blocked.defaultRule, 'approved');
    const error = await failure(clientOf().decideBlockedMessage(blocked.defaultRule, 'rejected'));
    expect(error).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_MESSAGE_ID_NOT_FOUND' });
  });
});

describe('rules', () => {
  it('lists every rule in one request, `limit` 25 as text', async () => {
    const list = await clientOf().listRules();
    expect(only(standIn().requests)).toMatchObject({
      method: 'GET',
      path: '/v3/moderation/rules',
      query: { limit: '25' },
    });
    expect(list.map((rule) => rule.id)).toEqual(Object.values(rules));
    expect(list[0]).toEqual({
      id: rules.defaultKeywords,
      name: 'Default keyword filter',
      description: "CometChat's own word list",
      enabled: true,
      active: true,
      isDefault: true,
      actions: ['blockMessage'],
      conditions: [
        {
          type: 'keyword',
          list: 'cometchat-default',
          operator: 'contains',
          message: 'Contains a word from the default list',
        },
      ],
      filters: [],
      revisionId: 'sandbox-app_default-keyword-filter_1',
      createdAt: 1_700_010_000,
      updatedAt: 1_700_010_000,
    });
  });

  it('reads a rule with `active`, `default`, filters and times absent', async () => {
    standIn().inject({
      kind: 'schema',
      body: {
        data: {
          id: 'r1',
          name: 'R',
          enabled: false,
          action: ['dropMessage'],
          conditions: [{ type: 'keyword' }],
          revisionId: 'app_r1_4',
          createdAt: '1700000000.5',
        },
      },
    });
    expect(await clientOf().getRule('r1')).toEqual({
      id: 'r1',
      name: 'R',
      description: undefined,
      enabled: false,
      active: false,
      isDefault: false,
      actions: ['dropMessage'],
      conditions: [{ type: 'keyword' }],
      filters: [],
      revisionId: 'app_r1_4',
      createdAt: 1_700_000_000,
      updatedAt: undefined,
    });
  });

  it('gets one rule; an unknown one is not_found (ERR_RULE_NOT_FOUND)', async () => {
    const rule = await clientOf().getRule(rules.profanity);
    expect(rule).toMatchObject({ id: 'profanity', revisionId: 'sandbox-app_profanity_2' });
    expect(standIn().requests[0]?.path).toBe('/v3/moderation/rules/profanity');
    const error = await failure(clientOf().getRule('no-such-rule'));
    expect(error).toMatchObject({
      kind: 'not_found',
      status: 404,
      serviceCode: 'ERR_RULE_NOT_FOUND',
      operation: 'getRule',
    });
  });

  it('PUTs the whole rule and reads the new revision', async () => {
    const current = await clientOf().getRule(rules.piiGuard);
    const updated = await clientOf().updateRule({
      id: current.id,
      name: current.name,
      description: 'Only e-mail addresses',
      enabled: current.enabled,
      actions: ['blockMessage'],
      conditions: current.conditions.slice(0, 1),
      filters: current.filters,
    });
    const put = standIn().requests[1];
    expect(put).toMatchObject({ method: 'PUT', path: '/v3/moderation/rules/pii-guard' });
    expect(put?.body).toEqual({
      id: 'pii-guard',
      name: 'Personal data guard',
      enabled: true,
      description: 'Only e-mail addresses',
      action: ['blockMessage'],
      filters: current.filters,
      conditions: current.conditions.slice(0, 1),
    });
    expect(updated).toMatchObject({
      revisionId: 'sandbox-app_pii-guard_2',
      actions: ['blockMessage'],
      description: 'Only e-mail addresses',
    });
    const revisions = await clientOf().listRuleRevisions(rules.piiGuard);
    expect(revisions.map((r) => [r.revisionId, r.active])).toEqual([
      ['sandbox-app_pii-guard_2', true],
      ['sandbox-app_pii-guard_1', false],
    ]);
  });

  it('is not_found for a rule that does not exist, which a PUT does not create', async () => {
    const error = await failure(
      clientOf().updateRule({
        id: 'new-rule',
        name: 'New',
        enabled: true,
        actions: ['blockMessage'],
        conditions: [{ type: 'keyword' }],
        filters: [],
      }),
    );
    expect(error).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_RULE_NOT_FOUND' });
    expect(standIn().state.moderation.rules.has('new-rule')).toBe(false);
  });

  it('lists the revisions of a rule, the current one active', async () => {
    const revisions = await clientOf().listRuleRevisions(rules.spamLinks);
    expect(only(standIn().requests).path).toBe('/v3/moderation/rules/spam-links/revisions');
    expect(revisions.map((r) => [r.revisionId, r.active])).toEqual([
      ['sandbox-app_spam-links_3', true],
      ['sandbox-app_spam-links_2', false],
      ['sandbox-app_spam-links_1', false],
    ]);
    const error = await failure(clientOf().listRuleRevisions('nope'));
    expect(error).toMatchObject({ kind: 'not_found', serviceCode: 'ERR_RULE_NOT_FOUND' });
  });

  it('sees a rule edited in the dashboard as a new revision', async () => {
    standIn().moderation.editRule(rules.profanity, { action: ['dropMessage'] });
    const rule = await clientOf().getRule(rules.profanity);
    expect(rule).toMatchObject({ revisionId: 'sandbox-app_profanity_3', actions: ['dropMessage'] });
  });
});
