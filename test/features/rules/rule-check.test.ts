import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { CometChatApp } from '../../../src/apps/apps.ts';
import type { ModerationRule } from '../../../src/cometchat/moderation-model.ts';
import { checkRules, type RuleCheckDeps } from '../../../src/features/rules/rule-check.ts';
import { createMemoryStore } from '../../../src/store/store.ts';
import { rule } from './rule-fixtures.ts';

const DAY = 24 * 60 * 60 * 1000;

/** One app whose rules (and their earlier revisions) the test sets, and what was posted. */
function setup() {
  let now = Date.parse('2026-11-20T08:00:00Z');
  const rules = new Map<string, ModerationRule[]>([['no-links', [rule()]]]);
  const current = () => [...rules.values()].map((revisions) => revisions.at(-1) ?? rule());
  const app = {
    name: 'prod',
    cometchat: {
      listRules: async () => current(),
      listRuleRevisions: async (id: string) => rules.get(id) ?? [],
    },
  } as unknown as CometChatApp;
  const store = createMemoryStore(() => now);
  const posts: { channel: string; text?: string }[] = [];
  const deps: RuleCheckDeps = {
    apps: { all: [app], multiple: false },
    store,
    client: {
      chat: {
        postMessage: async (args: { channel: string; text?: string }) => {
          posts.push(args);
          return { ok: true };
        },
      },
    } as unknown as RuleCheckDeps['client'],
    now: () => now,
    log: pino({ level: 'silent' }),
  };
  const edit = (over: Partial<ModerationRule>) => {
    const revisions = rules.get('no-links') ?? [];
    const last = revisions.at(-1) ?? rule();
    revisions.push({ ...last, ...over, revisionId: `app1_no-links_${revisions.length + 1}` });
  };
  return { deps, store, posts, edit, rules, nextDay: () => (now += DAY) };
}

const subscribe = (store: ReturnType<typeof createMemoryStore>, kind: 'rules' | 'digest') =>
  store.putSubscription({
    id: `s-${kind}`,
    app: 'prod',
    channel: `C0${kind.toUpperCase()}`,
    kind,
    filters: [],
    createdBy: 'U1',
    createdAt: 1,
  });

describe("the rules' daily check", () => {
  it('records on its first run, then tells a changed revision once, in rules channels only', async () => {
    const { deps, store, posts, edit, nextDay } = setup();
    await subscribe(store, 'rules');
    await subscribe(store, 'digest');
    expect(await checkRules(deps)).toBe(0);
    expect(posts).toEqual([]);
    edit({ enabled: false });
    // The same day is checked once, whichever replica asks.
    expect(await checkRules(deps)).toBe(0);
    nextDay();
    expect(await checkRules(deps)).toBe(1);
    expect(posts.map((p) => p.channel)).toEqual(['C0RULES']);
    expect(JSON.stringify(posts[0])).toContain('enabled: enabled → disabled');
    nextDay();
    expect(await checkRules(deps)).toBe(0);
    expect(posts).toHaveLength(1);
  });

  it('tells a rule added and a rule deleted outside the app, each once', async () => {
    const { deps, store, posts, rules, nextDay } = setup();
    await subscribe(store, 'rules');
    expect(await checkRules(deps)).toBe(0);
    const kept = rules.get('no-links') ?? [];
    rules.delete('no-links');
    rules.set('spam', [rule({ id: 'spam', name: 'Spam', revisionId: 'app1_spam_1' })]);
    nextDay();
    expect(await checkRules(deps)).toBe(2);
    const said = JSON.stringify(posts);
    expect(said).toContain('2 moderation rules changed outside this app');
    expect(said).toContain('*Spam* `spam`: added, revision `app1_spam_1`');
    expect(said).toContain('`no-links`: deleted (the last revision seen was `app1_no-links_1`)');
    nextDay();
    expect(await checkRules(deps)).toBe(0);
    expect(posts).toHaveLength(1);
    // Back again under the same id: told as added, once.
    rules.set('no-links', kept);
    nextDay();
    expect(await checkRules(deps)).toBe(1);
    expect(JSON.stringify(posts[1])).toContain('`no-links`: added');
    nextDay();
    expect(await checkRules(deps)).toBe(0);
  });

  it('says nothing of a revision this app made (a promotion records it)', async () => {
    const { deps, store, posts, edit, nextDay } = setup();
    await subscribe(store, 'rules');
    await checkRules(deps);
    edit({ actions: ['dropMessage'] });
    await store.setSeenRevision({
      app: 'prod',
      rule: 'no-links',
      revisionId: 'app1_no-links_2',
      seenAt: 2,
    });
    nextDay();
    expect(await checkRules(deps)).toBe(0);
    expect(posts).toEqual([]);
  });

  it('runs once across two replicas sharing the store', async () => {
    const { deps, store, edit, nextDay } = setup();
    await subscribe(store, 'rules');
    await checkRules(deps);
    edit({ name: 'Links' });
    nextDay();
    const told = await Promise.all([checkRules(deps), checkRules(deps)]);
    expect(told.sort()).toEqual([0, 1]);
  });
});
