import { describe, expect, it } from 'vitest';
import { parseAuditWords } from '../../src/features/audit/index.ts';
import { parseCallWords } from '../../src/features/calls/index.ts';
import { PAGE_PROBLEM, readCommand } from '../../src/features/command.ts';
import { Refusal } from '../../src/features/feature.ts';
import { SUBCOMMANDS } from '../../src/features/index.ts';
import { parsePermsWords } from '../../src/features/permissions/index.ts';
import { parseRolesWords } from '../../src/features/roles/index.ts';

/** What a read says, without its run. */
function said(text: string, apps: readonly string[] = []) {
  const read = readCommand(text, apps, SUBCOMMANDS);
  return 'problem' in read
    ? { app: read.app, problem: read.problem }
    : { app: read.app, name: read.name, parsed: read.parsed };
}

describe('readCommand with several apps', () => {
  const apps = ['staging', 'prod'];

  it('takes a leading app name as the app, and the rest as the subcommand', () => {
    expect(said('staging roles 2', apps)).toEqual({ app: 'staging', name: 'roles', parsed: 2 });
    expect(said('PROD perms default', apps)).toEqual({
      app: 'prod',
      name: 'perms',
      parsed: 'default',
    });
    expect(said('prod', apps)).toMatchObject({ app: 'prod', name: 'help' });
  });

  it('leaves the app to the caller when none is named', () => {
    expect(said('roles', apps)).toEqual({ app: undefined, name: 'roles', parsed: 1 });
    expect(said('apps', apps)).toMatchObject({ app: undefined, name: 'apps' });
    expect(said('permissions Admin', apps)).toMatchObject({ name: 'perms', parsed: 'admin' });
  });

  it('names the apps when the first word is neither a subcommand nor an app', () => {
    expect(said('qa roles', apps).problem).toContain('`staging`, `prod`');
  });

  it('keeps the one-app sentence for a single-app install', () => {
    expect(said('qa roles', ['default'])).toEqual({
      app: undefined,
      problem: 'There is no subcommand `qa`.',
    });
  });

  it('reads Slack’s entities back into the characters typed', () => {
    expect(said('call a&amp;b')).toMatchObject({ name: 'call', parsed: { sessionId: 'a&b' } });
  });
});

describe('the subcommands’ words', () => {
  it('roles: a page from 1, else the page rule', () => {
    expect(parseRolesWords([])).toBe(1);
    expect(parseRolesWords(['3'])).toBe(3);
    expect(parseRolesWords(['0'])).toEqual(new Refusal(PAGE_PROBLEM));
    expect(parseRolesWords(['1', '2'])).toBeInstanceOf(Refusal);
  });

  it('perms: one role id, lower-cased, checked', () => {
    expect(parsePermsWords(['Default'])).toBe('default');
    expect(parsePermsWords([])).toBeInstanceOf(Refusal);
    expect(parsePermsWords(['a b!'])).toBeInstanceOf(Refusal);
  });

  it('audit: a role and a page in either order', () => {
    expect(parseAuditWords([])).toEqual({ role: undefined, page: 1 });
    expect(parseAuditWords(['3', 'admin'])).toEqual({ role: 'admin', page: 3 });
    expect(parseAuditWords(['admin', 'moderator'])).toBeInstanceOf(Refusal);
  });

  it('call: a session id, and `as <uid>`', () => {
    expect(parseCallWords(['v1.s', 'AS', 'u-1'])).toEqual({ sessionId: 'v1.s', onBehalfOf: 'u-1' });
    // The session id as typed; the uid as CometChat stores it.
    expect(parseCallWords(['v1.S', 'as', 'U-1'])).toEqual({ sessionId: 'v1.S', onBehalfOf: 'u-1' });
    expect(parseCallWords(['v1.s', 'for', 'u-1'])).toBeInstanceOf(Refusal);
    expect(parseCallWords([])).toBeInstanceOf(Refusal);
  });
});
