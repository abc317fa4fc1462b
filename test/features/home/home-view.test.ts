import type { View } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { checkView } from '../../../offline/slack-standin/block-kit-limits.ts';
import { homeView } from '../../../src/features/home/home-view.ts';
import { homeApprovalBlocks } from '../../../src/features/permissions/approval-view.ts';
import type { ApprovalRequest } from '../../../src/store/store.ts';

// The Home tab at its largest: three apps of 25 roles, 50 requests waiting, ten changes.

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

function largest(): View {
  const waiting = Array.from({ length: 50 }, (_, i) => ({
    request: request(i),
    appName: 'prod',
    value: JSON.stringify({ id: request(i).id }),
  }));
  const own = Array.from({ length: 12 }, (_, i) => ({ request: request(100 + i) }));
  return homeView({
    several: true,
    approvals: homeApprovalBlocks(waiting, own),
    apps: ['prod', 'staging', 'eu-prod'].map((name) => ({
      name,
      region: 'us',
      snapshot: { state: 'ok', roles },
      editable: true,
    })),
    recent: Array.from({ length: 10 }, (_, i) => `change ${i} <@U0X>`),
    at: 1_700_000_000_000,
  });
}

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

  it('shows a failing app in its own section, and loading ones as pending', () => {
    const view = homeView({
      several: true,
      approvals: [],
      apps: [
        {
          name: 'prod',
          region: 'us',
          snapshot: { state: 'failed', sentence: 'CometChat <did not> answer', ref: 'abc' },
          editable: true,
        },
        { name: 'staging', region: 'eu', snapshot: { state: 'loading' }, editable: true },
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
});
