import { describe, expect, it } from 'vitest';
import { readCommand } from '../../../src/features/command.ts';
import { COMPARE_USAGE, parseCompareWords } from '../../../src/features/compare/compare-words.ts';
import { Refusal } from '../../../src/features/feature.ts';
import { SUBCOMMANDS } from '../../../src/features/index.ts';

const problem = (read: unknown) => (read instanceof Refusal ? read.problem : undefined);

describe('parseCompareWords', () => {
  it('reads two roles, lower-cased as the service keeps role ids', () => {
    expect(parseCompareWords(['Admin', 'default'])).toEqual({
      kind: 'roles',
      role: 'admin',
      other: 'default',
    });
  });

  it('reads one role and two app names, lower-cased as app names are', () => {
    expect(parseCompareWords(['admin', 'Staging', 'PROD'])).toEqual({
      kind: 'apps',
      role: 'admin',
      app: 'staging',
      other: 'prod',
    });
  });

  it('refuses a word that cannot be a role id by the role id rule, whichever it is', () => {
    const rule =
      'A role id is 1 to 100 characters of a-z, 0-9, `-` and `_` (see `/cometchat roles`).';
    expect(problem(parseCompareWords(['<!channel>', 'default']))).toBe(rule);
    expect(problem(parseCompareWords(['admin', 'a.b']))).toBe(rule);
    expect(problem(parseCompareWords(['x'.repeat(101), 'staging', 'prod']))).toBe(rule);
  });

  it('refuses a role compared with itself, and an app with itself, in one sentence each', () => {
    expect(problem(parseCompareWords(['admin', 'ADMIN']))).toBe(
      '`admin` compared with itself differs in nothing: name two roles.',
    );
    expect(problem(parseCompareWords(['admin', 'prod', 'Prod']))).toBe(
      'An app compared with itself differs in nothing: name two apps.',
    );
  });

  it('answers any other number of words with the usage', () => {
    for (const words of [[], ['admin'], ['admin', 'staging', 'prod', 'qa']]) {
      expect(problem(parseCompareWords(words)), words.join(' ')).toBe(`Usage: ${COMPARE_USAGE}.`);
    }
  });

  it('leaves app names to the run: the words alone cannot tell which are configured', () => {
    expect(parseCompareWords(['admin', 'qa', '<x>'])).toMatchObject({ app: 'qa', other: '<x>' });
  });
});

describe('compare through readCommand', () => {
  it('takes a leading app name as the app of two roles, and app names after the role as words', () => {
    const apps = ['staging', 'prod'];
    expect(readCommand('staging compare admin default', apps, SUBCOMMANDS)).toMatchObject({
      app: 'staging',
      name: 'compare',
      parsed: { kind: 'roles', role: 'admin', other: 'default' },
    });
    expect(readCommand('compare admin staging prod', apps, SUBCOMMANDS)).toMatchObject({
      app: undefined,
      name: 'compare',
      parsed: { kind: 'apps', role: 'admin', app: 'staging', other: 'prod' },
    });
  });
});
