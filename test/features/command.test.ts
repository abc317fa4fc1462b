import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../src/slack/command.ts';

describe('parseCommand with several apps', () => {
  const apps = ['staging', 'prod'];

  it('takes a leading app name as the app, and the rest as the subcommand', () => {
    expect(parseCommand('staging roles 2', apps)).toEqual({
      name: 'roles',
      page: 2,
      app: 'staging',
    });
    expect(parseCommand('PROD perms default', apps)).toEqual({
      name: 'perms',
      role: 'default',
      app: 'prod',
    });
    expect(parseCommand('prod', apps)).toEqual({ name: 'help', app: 'prod' });
  });

  it('leaves the app to the caller when none is named', () => {
    expect(parseCommand('roles', apps)).toEqual({ name: 'roles', page: 1 });
    expect(parseCommand('apps', apps)).toEqual({ name: 'apps' });
  });

  it('names the apps when the first word is neither a subcommand nor an app', () => {
    const sub = parseCommand('qa roles', apps);
    expect(sub.name).toBe('invalid');
    expect(sub.name === 'invalid' && sub.problem).toContain('`staging`, `prod`');
  });

  it('keeps the one-app sentence for a single-app install', () => {
    expect(parseCommand('qa roles', ['default'])).toEqual({
      name: 'invalid',
      problem: 'There is no subcommand `qa`.',
    });
  });
});
