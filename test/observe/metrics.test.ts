import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { statusClassOf } from '../../src/cometchat/observer.ts';
import { SUBCOMMAND_NAMES } from '../../src/features/index.ts';
import { createMetrics } from '../../src/observe/metrics.ts';
import { handledName } from '../../src/observe/observe-requests.ts';
import { factsOf } from '../../src/slack/body-facts.ts';

// The labels metrics are given: names from fixed sets only, whatever a request carries.

/** A body named as the middleware names it: read through its facts first. */
const named = (body: unknown, apps: ReadonlySet<string>, subcommands: ReadonlySet<string>) =>
  handledName(factsOf(body), apps, subcommands);

describe('handledName', () => {
  const apps = new Set(['prod', 'staging']);
  const subcommands = new Set(SUBCOMMAND_NAMES);
  it('names a command by its subcommand, after an app name, and anything else "other"', () => {
    expect(named({ command: '/cometchat', text: 'roles 2' }, apps, subcommands)).toEqual({
      kind: 'command',
      name: 'roles',
    });
    expect(
      named({ command: '/cometchat', text: 'prod perms default' }, apps, subcommands).name,
    ).toBe('perms');
    expect(named({ command: '/cometchat', text: '' }, apps, subcommands).name).toBe('help');
    expect(named({ command: '/cometchat', text: 'U0SECRET roles' }, apps, subcommands).name).toBe(
      'other',
    );
  });

  it("names interactions by the app's own ids, without the app behind a promotion", () => {
    const action = (id: string) => ({ type: 'block_actions', actions: [{ action_id: id }] });
    expect(named(action('roles_page_next'), apps, subcommands)).toEqual({
      kind: 'action',
      name: 'other',
    });
    expect(named(action('approve_change'), apps, subcommands).name).toBe('approve_change');
    expect(named(action('promote_change:prod'), apps, subcommands).name).toBe('promote_change');
    expect(
      named({ type: 'view_submission', view: { callback_id: 'perms_confirm' } }, apps, subcommands),
    ).toEqual({ kind: 'view', name: 'perms_confirm' });
    expect(named({ type: 'shortcut', callback_id: 'x'.repeat(99) }, apps, subcommands)).toEqual({
      kind: 'shortcut',
      name: 'other',
    });
  });
});

describe('handledName, of a body of any shape', () => {
  it('reads fields of another type as absent, and never throws', () => {
    const none = new Set<string>();
    // A signed command whose `text` came twice: Bolt reads it as an array.
    expect(named({ command: '/cometchat', text: ['roles', 'x'] }, none, none)).toEqual({
      kind: 'command',
      name: 'help',
    });
    expect(named({ type: 'block_actions', actions: [{ action_id: 7 }] }, none, none)).toEqual({
      kind: 'action',
      name: 'other',
    });
    expect(named({ type: 'view_submission', view: 'v' }, none, none).name).toBe('other');
    expect(named({ type: 'event_callback', event: null }, none, none).name).toBe('other');
    for (const body of [null, 'text', 42, [], { type: 5 }]) {
      expect(named(body, none, none)).toEqual({ kind: 'other', name: 'other' });
    }
  });
});

describe('status classes', () => {
  it('reduces a status to its class, and no status to why', () => {
    expect(statusClassOf(204)).toBe('2xx');
    expect(statusClassOf(429)).toBe('4xx');
    expect(statusClassOf(undefined, 'timeout')).toBe('timeout');
    expect(statusClassOf(undefined, 'network')).toBe('network');
    expect(statusClassOf(undefined, 'internal')).toBe('other');
  });
});

describe('the registry', () => {
  it("carries prom-client's standard Node.js metrics, event-loop lag among them", async () => {
    const metrics = createMetrics();
    await sleep(50);
    const text = await metrics.registry.metrics();
    for (const name of ['nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds']) {
      expect(text).toMatch(new RegExp(`^${name} \\d`, 'm'));
    }
    expect(text).toContain('process_resident_memory_bytes');
  });

  it('says which release runs on which Node, as one series of value 1', async () => {
    const metrics = createMetrics({
      defaultMetrics: false,
      build: { version: '1.2.3', node: '24.21.0' },
    });
    expect(await metrics.registry.metrics()).toContain(
      'cometchat_ops_build_info{version="1.2.3",node="24.21.0"} 1',
    );
  });
});
