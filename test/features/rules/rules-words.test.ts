import { describe, expect, it } from 'vitest';
import { Refusal } from '../../../src/features/feature.ts';
import { parseRulesWords } from '../../../src/features/rules/rules-words.ts';

const refusal = (words: string[]) => {
  const read = parseRulesWords(words);
  return read instanceof Refusal ? read.problem : undefined;
};

describe('the words after `rules`', () => {
  it('list a page, compare two apps, or promote a rule', () => {
    expect(parseRulesWords([])).toEqual({ kind: 'list', page: 1 });
    expect(parseRulesWords(['2'])).toEqual({ kind: 'list', page: 2 });
    expect(parseRulesWords(['compare', 'Prod', 'staging'])).toEqual({
      kind: 'compare',
      app: 'prod',
      other: 'staging',
    });
    expect(parseRulesWords(['promote', 'No_Links-2', 'Staging'])).toEqual({
      kind: 'promote',
      rule: 'No_Links-2',
      to: 'staging',
    });
  });

  it('refuse a rule id that cannot be one, in one sentence', () => {
    expect(refusal(['promote', 'a'.repeat(101), 'staging'])).toBe(
      'A rule id is at most 100 characters.',
    );
    expect(refusal(['promote', 'no', 'links', 'staging'])).toMatch(
      /^A rule id cannot contain spaces/,
    );
  });

  it('refuse what is not one of its forms', () => {
    expect(refusal(['compare', 'prod'])).toMatch(/^Usage:/);
    expect(refusal(['compare', 'prod', 'prod'])).toMatch(/compared with itself/);
    expect(refusal(['promote', 'no-links'])).toMatch(/^Usage:/);
    expect(refusal(['zero'])).toMatch(/^The page must be/);
    expect(refusal(['1', '2'])).toMatch(/^Usage:/);
  });
});
