import { describe, expect, it } from 'vitest';
import {
  compareRules,
  RULES_PER_PAGE,
  rulesChangedPost,
  rulesCompareMessage,
  rulesListMessage,
} from '../../../src/features/rules/rules-view.ts';
import { rule } from './rule-fixtures.ts';

const write = (value: Record<string, unknown>) => JSON.stringify(value);
const json = (value: unknown) => JSON.stringify(value);

describe('the rule list', () => {
  it('shows each rule: name, id, state, action, conditions, revision, with Promote', () => {
    const message = rulesListMessage([rule({ name: '<Links> *now*', enabled: false })], 1, {
      others: ['staging'],
      write,
    });
    const text = json(message.blocks);
    expect(text).toContain('&lt;Links&gt;');
    expect(text).toContain('`no-links` · disabled · active');
    expect(text).toContain('Action: `blockMessage`');
    expect(text).toContain('When: message text contains “http://”, “https://”');
    expect(text).toContain('Revision `app1_no-links_1`');
    expect(text).toContain('"action_id":"promote_rule:staging:no-links"');
    expect(text).toContain(json(write({ promoteRule: 'no-links', to: 'staging' })).slice(1, -1));
  });

  it('pages 25 rules by ten, with page buttons, and offers no Promote with one app', () => {
    const many = Array.from({ length: 25 }, (_, i) => rule({ id: `r${i}`, name: `Rule ${i}` }));
    const first = rulesListMessage(many, 1, { others: [], write });
    const last = rulesListMessage(many, 3, { others: [], write });
    expect(json(first.blocks)).toContain('Page 1 of 3 · 25 rules');
    expect(json(first.blocks)).not.toContain('promote_rule');
    expect(first.blocks?.filter((b) => b.type === 'section')).toHaveLength(RULES_PER_PAGE);
    expect(last.blocks?.filter((b) => b.type === 'section')).toHaveLength(5);
    expect(json(last.blocks)).toContain('{\\"page\\":2}');
    expect(json(rulesListMessage([], 1, { others: [], write }).blocks)).toContain(
      'This app has no moderation rules.',
    );
  });
});

describe('two apps compared', () => {
  const prod = [rule(), rule({ id: 'profanity', name: 'Profanity' }), rule({ id: 'only-prod' })];
  const staging = [
    rule({ enabled: false, description: undefined }),
    rule({ id: 'profanity', name: 'Profanity' }),
    rule({ id: 'only-staging' }),
  ];

  it('lists rules in one only, and each field that differs, with equal ones counted', () => {
    const comparison = compareRules(prod, staging);
    expect(comparison.onlyLeft.map((r) => r.id)).toEqual(['only-prod']);
    expect(comparison.onlyRight.map((r) => r.id)).toEqual(['only-staging']);
    expect(comparison.differing).toEqual([
      {
        id: 'no-links',
        name: 'No links',
        fields: [
          { field: 'description', left: 'Blocks messages with links', right: 'none' },
          { field: 'enabled', left: 'enabled', right: 'disabled' },
        ],
      },
    ]);
    expect(comparison.equal).toBe(1);
    const message = rulesCompareMessage({ left: 'prod', right: 'staging' }, comparison);
    expect(message.text).toBe(
      'Compare rules in *prod* and *staging*: 3 rules differ, 1 rule is equal.',
    );
    const rows = json(message.blocks);
    expect(rows).toContain('not in staging');
    expect(rows).toContain('not in prod');
  });

  it('says when nothing differs', () => {
    const message = rulesCompareMessage({ left: 'a', right: 'b' }, compareRules(prod, prod));
    expect(json(message.blocks)).toContain('No rule differs: 3 rules are equal.');
  });
});

describe("the daily check's post", () => {
  it('names each rule, its revisions, and what changed', () => {
    const before = rule();
    const now = rule({ actions: ['blockMessage', 'kickUser'], revisionId: 'app1_no-links_2' });
    const post = rulesChangedPost(
      [{ before: { revisionId: before.revisionId, rule: before }, now }],
      'prod',
    );
    expect(post.text).toBe(
      ':memo: 1 moderation rule changed outside this app in *prod* since the last check.',
    );
    const said = json(post.blocks);
    expect(said).toContain('revision `app1_no-links_1` → `app1_no-links_2`');
    expect(said).toContain('actions: `blockMessage` → `blockMessage`, `kickUser`');
    const unlisted = rulesChangedPost([{ before: { revisionId: 'gone' }, now }], undefined);
    expect(json(unlisted.blocks)).toContain('no longer listed');
  });
});
