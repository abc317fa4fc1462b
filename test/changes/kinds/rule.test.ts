import { describe, expect, it } from 'vitest';
import type { Access } from '../../../src/access/access.ts';
import { applyChange } from '../../../src/changes/apply.ts';
import { decodeChange, encodeChange, type RuleChange } from '../../../src/changes/change.ts';
import type { ChangeClient, Reads } from '../../../src/changes/kinds/index.ts';
import { kindOf } from '../../../src/changes/kinds/index.ts';
import {
  conditionsSummary,
  ruleChangeLines,
  ruleDifferences,
  ruleFromValues,
  ruleUpdateOf,
  ruleValues,
} from '../../../src/changes/kinds/rule-fields.ts';
import type { AuditTrail } from '../../../src/changes/record.ts';
import { revertOf } from '../../../src/changes/revert.ts';
import { CometChatError } from '../../../src/cometchat/errors.ts';
import type { ModerationRule, RuleUpdate } from '../../../src/cometchat/moderation-model.ts';
import { promotedRule } from '../../../src/features/rules/rule-promotion.ts';
import { createLogger } from '../../../src/log.ts';
import { runInRequest } from '../../../src/request-context.ts';
import { type AuditRecord, createMemoryStore } from '../../../src/store/store.ts';
import { rule } from '../../features/rules/rule-fixtures.ts';

const NOW = 1_800_000_000_000;
const staging = rule({ enabled: false, actions: ['flagMessage'], revisionId: 'app2_no-links_4' });
const prod = rule({ revisionId: 'app1_no-links_7' });

function change(): RuleChange {
  return promotedRule(prod, staging, 'staging');
}

function reads(found: ModerationRule | Error): Reads {
  const getRule = async () => {
    if (found instanceof Error) throw found;
    return found;
  };
  return {
    store: { getKnownPermissions: async () => undefined },
    app: {
      name: 'staging',
      cometchat: {
        getRule,
        listFlaggedMessages: () => Promise.reject(new Error('not asked')),
        listBlockedMessages: () => Promise.reject(new Error('not asked')),
        getUser: () => Promise.reject(new Error('not asked')),
        listAllRoles: () => Promise.reject(new Error('not asked')),
        getMessage: () => Promise.reject(new Error('not asked')),
        listSessions: () => Promise.reject(new Error('not asked')),
        listGroupMembers: () => Promise.reject(new Error('not asked')),
        listBannedMembers: () => Promise.reject(new Error('not asked')),
      },
    },
  };
}

function client(sent: RuleUpdate[], answer: (r: RuleUpdate) => ModerationRule): ChangeClient {
  const notAsked = () => Promise.reject(new Error('not asked'));
  return {
    updateRule: async (r) => {
      sent.push(r);
      return answer(r);
    },
    getRule: notAsked,
    decideFlaggedMessage: notAsked,
    decideBlockedMessage: notAsked,
    listFlaggedMessages: notAsked,
    listBlockedMessages: notAsked,
    setRolePermissions: notAsked,
    unsetRolePermission: notAsked,
    setUserRole: notAsked,
    deactivateUsers: notAsked,
    reactivateUsers: notAsked,
    getUser: notAsked,
    listUsers: notAsked,
    createRole: notAsked,
    updateRole: notAsked,
    deleteRole: notAsked,
    listAllRoles: notAsked,
    revokeAllSessions: notAsked,
    banGroupMember: notAsked,
    unbanGroupMember: notAsked,
    listMessages: notAsked,
    getMessage: notAsked,
    deleteMessage: notAsked,
    listSessions: notAsked,
    setMemberScope: notAsked,
    kickGroupMember: notAsked,
    listGroupMembers: notAsked,
    listBannedMembers: notAsked,
    revokeSession: notAsked,
    setScopePermissions: notAsked,
    unsetScopePermission: notAsked,
  };
}

describe('a rule promoted to another app', () => {
  it("holds every field, from that app's rule to the source's, and names the rule", () => {
    const c = change();
    expect(c).toMatchObject({ kind: 'rule', role: 'no-links' });
    expect(c.changes.map((k) => [k.key, k.before, k.after, k.explicit])).toEqual([
      ['name', 'No links', 'No links', true],
      ['description', 'Blocks messages with links', 'Blocks messages with links', true],
      ['enabled', 'false', 'true', false],
      ['actions', ['flagMessage'], ['blockMessage'], false],
      ['conditions', expect.any(String), expect.any(String), true],
      ['filters', '[]', '[]', true],
    ]);
    expect(kindOf(c).name).toBe('rule `no-links`');
  });

  it('comes back from Slack as the same change, and a forged one does not', () => {
    const c = change();
    expect(decodeChange(encodeChange(c))).toEqual({ ...c, seenAt: undefined });
    const record = JSON.parse(encodeChange(c));
    expect(decodeChange(JSON.stringify({ ...record, changes: record.changes.slice(1) }))).toBe(
      undefined,
    );
    expect(decodeChange(JSON.stringify({ ...record, role: 'has space' }))).toBeUndefined();
  });

  it('is sent as one PUT of the whole rule, and keeps the revision the answer gives', async () => {
    const sent: RuleUpdate[] = [];
    const answered = client(sent, (r) => ({ ...prod, ...r, revisionId: 'app2_no-links_5' }));
    const result = await kindOf(change()).send(answered);
    expect(sent).toEqual([ruleUpdateOf(prod)]);
    expect(result.revision).toBe('app2_no-links_5');
  });

  it('is refused when the answer is another rule than was sent', async () => {
    const other = client([], (r) => ({ ...prod, ...r, enabled: false }));
    await expect(kindOf(change()).send(other)).rejects.toThrow('another rule');
  });

  it('records a PUT answered with a normalised rule as unknown, and remembers its revision', async () => {
    // CometChat may answer with the conditions normalised: the PUT may have replaced the rule,
    // so it is neither "applied" nor "failed, did not take".
    const sent: RuleUpdate[] = [];
    const normalised = client(sent, (r) => ({
      ...prod,
      ...r,
      conditions: [{ ...(r.conditions[0] as object), normalised: true }],
      revisionId: 'app2_no-links_5',
    }));
    const store = createMemoryStore(() => NOW);
    const audited: AuditRecord[] = [];
    const audit: AuditTrail = {
      async record(record) {
        audited.push(record);
        return { stored: true };
      },
    };
    const app = {
      name: 'staging',
      access: { editRefusal: async () => undefined } as unknown as Access,
      cometchat: { ...normalised, getRule: async () => staging },
    };
    const context = { ref: 'ref0000001', log: createLogger({ level: 'silent' }), receivedAt: NOW };
    const outcome = await runInRequest(context, () =>
      applyChange(
        { store, audit, now: () => NOW },
        { app, change: change(), userId: 'U0EDITOR', teamId: 'T0TEAM' },
      ),
    );
    expect(outcome.kind).toBe('unknown');
    expect(sent).toHaveLength(1);
    expect(audited.map((r) => r.outcome)).toEqual(['unknown']);
    expect((await store.getSeenRevisions('staging')).get('no-links')).toMatchObject({
      revisionId: 'app2_no-links_5',
    });
  });

  it('is out of date when the rule there changed since the review, or is gone', async () => {
    const kind = kindOf(change());
    expect(await kind.sinceReview(reads(staging))).toEqual({ changed: false, has: false });
    expect(await kind.sinceReview(reads({ ...staging, name: 'Renamed' }))).toMatchObject({
      changed: true,
      has: false,
    });
    expect(await kind.sinceReview(reads({ ...prod, revisionId: 'x' }))).toMatchObject({
      changed: true,
      has: true,
    });
    const gone = new CometChatError({
      kind: 'not_found',
      ref: 'r1',
      operation: 'getRule',
      serviceCode: 'ERR_RULE_NOT_FOUND',
    });
    expect(await kind.sinceReview(reads(gone))).toMatchObject({
      changed: true,
      why: 'There is no rule `no-links` any more, so nothing was sent.',
    });
  });
});

describe('a rule change reverted', () => {
  const record: AuditRecord = {
    ref: 'ref-rule-1',
    at: 1,
    app: 'staging',
    teamId: 'T1',
    userId: 'U1',
    role: 'no-links',
    subject: { kind: 'rule' },
    changes: change().changes.map((c) => ({ ...c, before: c.before ?? null })),
    beforeSource: 'service',
    outcome: 'applied',
  };
  const now = { roles: [], defaults: {} };

  it("puts the rule's state before back, every field, as one change of the same kind", () => {
    const revert = revertOf(record, { ...now, rule: { ...prod, revisionId: 'app2_no-links_5' } });
    if (revert.kind !== 'revert') throw new Error(revert.sentence);
    expect(revert.change.kind).toBe('rule');
    expect(
      ruleFromValues(
        'no-links',
        Object.fromEntries(revert.change.changes.map((c) => [c.key, c.after])),
      ),
    ).toEqual(ruleUpdateOf(staging));
    expect(revert.since).toEqual([]);
  });

  it('says what changed since, and has nothing to do when the rule is as before', () => {
    const moved = revertOf(record, { ...now, rule: { ...prod, name: 'Moved' } });
    expect(moved.kind === 'revert' && moved.since.map((s) => s.key)).toEqual(['name']);
    expect(revertOf(record, { ...now, rule: staging })).toMatchObject({ kind: 'none' });
    expect(revertOf(record, now)).toEqual({
      kind: 'none',
      sentence: 'There is no rule `no-links` now; nothing to put back.',
    });
  });
});

describe("a rule's fields", () => {
  it('compare conditions whatever the order of their keys', () => {
    const shuffled = rule({
      conditions: [
        {
          value: ['http://', 'https://'],
          operator: 'contains',
          operand: 'text',
          entity: 'message',
          message: ['Message contains a link'],
          id: 1,
        },
      ],
    });
    expect(ruleDifferences(ruleUpdateOf(rule()), ruleUpdateOf(shuffled))).toEqual([]);
    expect(ruleDifferences(ruleUpdateOf(rule()), ruleUpdateOf(staging))).toEqual([
      'enabled',
      'actions',
    ]);
  });

  it('summarise documented conditions, and others by their shape, in one line', () => {
    expect(conditionsSummary(rule().conditions, [])).toBe(
      'message text contains “http://”, “https://”',
    );
    expect(conditionsSummary([{ kind: 'x', y: 1 }, 'odd', {}], [{}, {}])).toBe(
      'a condition of kind, y; a condition of an unknown shape; an empty condition · 2 filters',
    );
    expect(conditionsSummary([], [])).toBe('no conditions');
    const keyword = { type: 'keyword', list: 'profanity-en', operator: 'contains', message: 'm' };
    expect(conditionsSummary([keyword, { type: 'url', list: 'spam' }], [])).toBe(
      'keyword contains list “profanity-en”; url: list “spam”',
    );
  });

  it('read back into no rule when a field is missing or broken', () => {
    const values = ruleValues(ruleUpdateOf(rule()));
    expect(ruleFromValues('no-links', values)).toEqual(ruleUpdateOf(rule()));
    expect(ruleFromValues('no-links', { ...values, conditions: '{' })).toBeUndefined();
    expect(ruleFromValues('no-links', { ...values, enabled: 'yes' })).toBeUndefined();
  });

  it('show only what differs, escaped', () => {
    const lines = ruleChangeLines([
      { key: 'name', before: '<b>', after: '*x*' },
      { key: 'enabled', before: 'true', after: 'true' },
    ]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('&lt;b&gt;');
  });
});
