import { describe, expect, it } from 'vitest';
import { decodeChange } from '../../../src/changes/change.ts';
import { rulePromotionView } from '../../../src/features/rules/rule-promotion.ts';
import { rule } from './rule-fixtures.ts';

const names = { from: 'prod', to: 'staging' };
const write = (value: Record<string, unknown>) => JSON.stringify(value);
const view = (input: Partial<Parameters<typeof rulePromotionView>[0]>) => {
  const shown = rulePromotionView({
    id: 'no-links',
    source: rule(),
    target: rule({ enabled: false, revisionId: 'app2_no-links_3' }),
    names,
    to: { name: 'staging', approval: undefined },
    write,
    ...input,
  });
  if (shown.type !== 'modal') throw new Error('not a modal');
  return shown;
};

describe("a rule's promotion", () => {
  it("is that app's review of the whole rule, its metadata the change to send", () => {
    const shown = view({});
    expect(shown.submit?.text).toBe('Apply');
    expect(JSON.stringify(shown.blocks)).toContain('enabled: disabled → enabled');
    const change = decodeChange(shown.private_metadata);
    expect(change?.kind).toBe('rule');
    expect(change?.changes).toHaveLength(6);
  });

  it('asks for approval where that app asks for it', () => {
    const shown = view({ to: { name: 'staging', approval: { channel: 'C0APPROVE', ttlMs: 1 } } });
    expect(shown.submit?.text).toBe('Request approval');
    expect(JSON.stringify(shown.blocks)).toContain('<#C0APPROVE>');
  });

  it('says in one sentence why there is none: no rule here, none there, nothing differs', () => {
    const said = (input: Partial<Parameters<typeof rulePromotionView>[0]>) =>
      JSON.stringify(view(input).blocks);
    expect(said({ source: undefined })).toContain('There is no rule `no-links` in *prod*');
    expect(said({ target: undefined })).toContain("CometChat's update of a rule creates none");
    expect(said({ target: rule({ revisionId: 'other' }) })).toContain(
      'is the same as in *prod* already',
    );
    for (const input of [{ source: undefined }, { target: undefined }]) {
      expect(view(input).private_metadata ?? '').not.toContain('"kind"');
    }
  });
});
