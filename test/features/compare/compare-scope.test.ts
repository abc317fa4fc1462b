import { describe, expect, it } from 'vitest';
import { SHIPPED_SCOPE_CATALOGUE } from '../../../src/cometchat/scope-catalogue.ts';
import { compareMessage } from '../../../src/features/compare/compare-view.ts';
import { parseCompareWords } from '../../../src/features/compare/compare-words.ts';
import { Refusal } from '../../../src/features/feature.ts';
import { compareKnownMaps } from '../../../src/features/known-maps.ts';

// Comparing a group's scope between two apps (issue 48, Deliver 2): the four-word form, and the
// comparison over the scope's own keys.

const problem = (read: unknown) => (read instanceof Refusal ? read.problem : undefined);

describe('compare <guid> <scope> <app> <other app>', () => {
  it('reads four words whose second is a scope as a group’s scope in two apps', () => {
    expect(parseCompareWords(['Hiking', 'Moderator', 'Staging', 'PROD'])).toEqual({
      kind: 'scope',
      guid: 'hiking',
      scope: 'moderator',
      app: 'staging',
      other: 'prod',
    });
  });

  it('refuses a guid that cannot be one, and an app compared with itself', () => {
    expect(problem(parseCompareWords(['hik!ng', 'admin', 'staging', 'prod']))).toBe(
      'A guid is lower-case letters, digits, `-` and `_` only, as CometChat stores it.',
    );
    expect(problem(parseCompareWords(['hiking', 'admin', 'prod', 'PROD']))).toBe(
      'An app compared with itself differs in nothing: name two apps.',
    );
  });

  it('leaves the role forms as they were: three words are a role in two apps', () => {
    expect(parseCompareWords(['admin', 'staging', 'prod'])).toMatchObject({ kind: 'apps' });
    expect(parseCompareWords(['moderator', 'admin'])).toMatchObject({ kind: 'roles' });
  });
});

describe('a comparison of a scope', () => {
  const set = (permissions: Record<string, string>) => ({
    permissions,
    seenAt: 1_700_000_000_000,
    ref: 'ref0000020',
  });

  it("compares the scope's own keys, defaults where a side never set them", () => {
    const comparison = compareKnownMaps(
      set({ sendMessage: 'deny' }),
      undefined,
      SHIPPED_SCOPE_CATALOGUE,
    );
    expect(comparison.differing.map((d) => d.key)).toEqual(['sendMessage']);
    expect(comparison.equal).toBe(SHIPPED_SCOPE_CATALOGUE.specs.length - 1);
    // A role key the scope does not have is not compared.
    expect(comparison.differing.some((d) => d.key === 'listUsers')).toBe(false);
  });

  it('names the group, the scope and both apps, and why the app’s own record is compared', () => {
    const message = compareMessage(
      { kind: 'scope', guid: 'hiking', scope: 'moderator', left: 'staging', right: 'prod' },
      compareKnownMaps(set({ sendMessage: 'deny' }), undefined, SHIPPED_SCOPE_CATALOGUE),
    );
    expect(message.text).toBe(
      'Compare the scope `moderator` of group `hiking` in *staging* and *prod*: 1 key differs, 10 keys are equal.',
    );
    expect(JSON.stringify(message.blocks)).toContain(
      "CometChat offers no read of a scope's configured permissions",
    );
  });

  it('says when this app never changed the scope in either app', () => {
    const message = compareMessage(
      { kind: 'scope', guid: 'hiking', scope: 'admin', left: 'staging', right: 'prod' },
      compareKnownMaps(undefined, undefined, SHIPPED_SCOPE_CATALOGUE),
    );
    expect(JSON.stringify(message.blocks)).toContain(
      'This app has never changed the scope `admin` of group `hiking` in *staging* or *prod*',
    );
  });
});
