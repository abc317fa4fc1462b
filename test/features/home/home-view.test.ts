import type { ActionsBlock, View } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { checkView } from '../../../offline/slack-standin/block-kit-limits.ts';
import type { Access } from '../../../src/access/access.ts';
import { createApps, openSignedOption, signedOption } from '../../../src/apps/apps.ts';
import { homeApprovalBlocks } from '../../../src/changes/approval-view.ts';
import type { CometChatClient } from '../../../src/cometchat/client.ts';
import { type HomeInput, homeView } from '../../../src/features/home/home-view.ts';
import type { PairSummary } from '../../../src/features/home/role-differences.ts';
import type { ApprovalRequest } from '../../../src/store/store.ts';

// The Home tab at its largest: three apps of 25 roles, 50 requests waiting, ten changes, every
// pair of apps with 25 roles that differ.

const request = (i: number): ApprovalRequest => ({
  id: String(i).padStart(24, '0'),
  app: 'prod',
  role: `role-${i}`,
  changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
  teamId: 'T1',
  requester: `U0REQ${i}`,
  requestedAt: 1_700_000_000_000 + i * 1000,
  expiresAt: 1_700_086_400_000 + i * 1000,
  channel: 'C0APPROVE',
  status: 'open',
});

const roles = Array.from({ length: 25 }, (_, i) => ({ role: `role-${i}`, name: `Role <${i}>` }));

/** The apps' registry, to sign the role pickers' options as the tab does. */
const registry = createApps(
  ['prod', 'staging', 'eu-prod', 'default'].map((name) => ({
    name,
    appId: `${name}-id`,
    region: 'us',
    apiKey: `key-${name}`,
    cometchat: {} as CometChatClient,
    access: {} as Access,
  })),
);
const optionValue = (name: string) => {
  const app = registry.byName(name) ?? registry.all[0];
  if (!app) throw new Error('no app');
  return (role: string) => signedOption(app, role);
};

/** Three apps' pairs, each with 25 roles that differ and some known in one app only. */
const pairs = (names: readonly string[]): PairSummary[] =>
  names.flatMap((left, i) =>
    names.slice(i + 1).map((right) => ({
      state: 'compared' as const,
      left,
      right,
      differing: roles.map((r, k) => ({ role: r.role, keys: k + 1 })),
      onlyLeft: ['only-left'],
      onlyRight: [],
    })),
  );

function largestInput(): HomeInput {
  const waiting = Array.from({ length: 50 }, (_, i) => ({
    request: request(i),
    appName: 'prod',
    value: JSON.stringify({ id: request(i).id }),
  }));
  const own = Array.from({ length: 12 }, (_, i) => ({ request: request(100 + i) }));
  return {
    multiple: true,
    approvals: homeApprovalBlocks(waiting, own),
    apps: ['prod', 'staging', 'eu-prod'].map((name) => ({
      name,
      region: 'us',
      snapshot: { state: 'ok', roles },
      editable: true,
      optionValue: optionValue(name),
    })),
    recent: Array.from({ length: 10 }, (_, i) => ({ line: `change ${i} <@U0X>`, app: 'prod' })),
    differences: pairs(['prod', 'staging', 'eu-prod']),
    at: 1_700_000_000_000,
  };
}

const largest = (): View => homeView(largestInput());

describe('homeView', () => {
  it("stays within Slack's limits with 3 apps of 25 roles and 50 requests waiting", () => {
    const view = largest();
    expect(checkView(view as never)).toEqual([]);
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    const text = JSON.stringify(view);
    // The most recent first, and how many more.
    expect(text).toContain('Waiting for your approval (50)');
    expect(text).toContain('role-49');
    expect(text).not.toContain('`role-39`');
    expect(text).toContain('40 older not shown');
    expect(text).toContain('_…and 2 more_');
  });

  it('shows the roles that differ between apps before the last changes, within 100 blocks', () => {
    const text = JSON.stringify(largest());
    expect(text).toContain('Roles that differ between apps');
    expect(text).toContain('`/cometchat compare role-0 prod staging`');
    expect(text.indexOf('Roles that differ')).toBeLessThan(text.indexOf('Recent permission'));

    // Twelve apps: 66 pairs, more than the tab holds. The pairs are cut, the last changes kept.
    const names = Array.from({ length: 12 }, (_, i) => `app-${i}`);
    const crowded = homeView({
      multiple: true,
      approvals: [],
      apps: names.map((name) => ({
        name,
        region: undefined,
        snapshot: { state: 'ok', roles },
        editable: false,
        optionValue: optionValue(name),
      })),
      recent: [{ line: 'change <@U0X>', app: 'app-0' }],
      differences: pairs(names),
      at: 1_700_000_000_000,
    });
    expect(checkView(crowded as never)).toEqual([]);
    expect(crowded.blocks).toHaveLength(100);
    const all = JSON.stringify(crowded);
    expect(all).toMatch(/\d+ more pairs? of apps not shown/);
    expect(all).toContain('Recent permission changes');
    expect(all).toContain('change <@U0X>');
  });

  it('lists the alerts in the person’s channels after the apps, the differences taking what is left', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `<#C${i}> · *calls* \`status:unanswered\``);
    const view = homeView({
      ...largestInput(),
      alerts: { lines, partial: false },
    });
    expect(checkView(view as never)).toEqual([]);
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    const text = JSON.stringify(view);
    expect(text).toContain('Alerts in your channels');
    expect(text).toContain('…and 10 more subscriptions.');
    expect(text.indexOf('CometChat apps')).toBeLessThan(text.indexOf('Alerts in your channels'));
    expect(text.indexOf('Alerts in your channels')).toBeLessThan(text.indexOf('Roles that differ'));
    expect(text).toContain('Recent permission changes');
    const unread = JSON.stringify(homeView({ ...largestInput(), alerts: 'unread' }));
    expect(unread).toContain('Your channels could not be read just now');
    expect(
      JSON.stringify(homeView({ ...largestInput(), alerts: { lines: [], partial: false } })),
    ).not.toContain('Alerts in your channels');
  });

  it('has no such section when it is given none (one app, or one to view)', () => {
    const view = homeView({
      multiple: false,
      approvals: [],
      apps: [
        {
          name: 'default',
          region: undefined,
          snapshot: { state: 'ok', roles },
          editable: false,
          optionValue: optionValue('default'),
        },
      ],
      recent: [],
      at: 1_700_000_000_000,
    });
    expect(JSON.stringify(view)).not.toContain('Roles that differ');
  });

  it('shows a failing app in its own section, and loading ones as pending', () => {
    const view = homeView({
      multiple: true,
      approvals: [],
      apps: [
        {
          name: 'prod',
          region: 'us',
          snapshot: { state: 'failed', sentence: 'CometChat <did not> answer', ref: 'abc' },
          editable: true,
          optionValue: optionValue('prod'),
        },
        {
          name: 'staging',
          region: 'eu',
          snapshot: { state: 'loading' },
          editable: true,
          optionValue: optionValue('staging'),
        },
      ],
      recent: undefined,
      at: 1_700_000_000_000,
    });
    const text = JSON.stringify(view);
    expect(text).toContain('CometChat &lt;did not&gt; answer');
    expect(text).toContain('Checking the key');
    expect(text).toContain('could not be read');
    expect(text).not.toContain('home_edit_role');
  });

  it('signs each picker option for its app, leaving out a role whose signed value would not fit', () => {
    const long = 'r'.repeat(59);
    const fits = 'r'.repeat(58);
    const picker = (list: readonly { role: string; name: string }[]) =>
      homeView({
        multiple: true,
        approvals: [],
        apps: [
          {
            name: 'staging',
            region: 'us',
            snapshot: { state: 'ok', roles: list },
            editable: true,
            optionValue: optionValue('staging'),
          },
        ],
        recent: [],
        at: 1_700_000_000_000,
      })
        .blocks.flatMap((b) => (b.type === 'actions' ? (b as ActionsBlock).elements : []))
        .filter((e) => e.type === 'static_select');
    const [select] = picker([
      ...roles.slice(0, 2),
      { role: long, name: 'Long' },
      { role: fits, name: 'Fits' },
    ]);
    const options = (select as { options: { value: string }[] }).options;
    expect(options.map((o) => openSignedOption(registry, o.value))).toEqual([
      { app: registry.byName('staging'), text: 'role-0' },
      { app: registry.byName('staging'), text: 'role-1' },
      { app: registry.byName('staging'), text: fits },
    ]);
    for (const option of options) expect(option.value.length).toBeLessThanOrEqual(75);
    // No role fits: no picker at all (Slack refuses a select without options).
    expect(picker([{ role: long, name: 'Long' }])).toEqual([]);
  });
});
