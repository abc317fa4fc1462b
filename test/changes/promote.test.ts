import type { View } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { decodeChange } from '../../src/changes/change.ts';
import { baselineFrom } from '../../src/changes/kinds/permissions.ts';
import { type AppliedChange, promotedChange, promotionView } from '../../src/changes/promote.ts';

// A change applied to one app, made into another app's confirmation: pure, no Slack, no service.

const applied: AppliedChange = {
  role: 'default',
  ref: 'abc123def0',
  changes: [
    { key: 'sendMessage', after: 'deny' },
    { key: 'joinGroup', after: 'allow' },
  ],
};
const submitOf = (view: View) => ('submit' in view ? view.submit : undefined);
const known = (permissions: Record<string, string>) => ({
  app: 'prod',
  role: 'default',
  permissions,
  seenAt: 5_000,
});

describe('promotedChange', () => {
  it("sends exactly the promoted keys, each compared with the other app's own values", () => {
    const meta = promotedChange({
      applied,
      from: 'staging',
      to: 'prod',
      baseline: baselineFrom(known({ sendMessage: 'allow', joinGroup: 'allow' })),
    });
    expect(meta.changes).toEqual([
      { key: 'sendMessage', before: 'allow', after: 'deny', explicit: false },
      // Already the value there: still sent, said to be stated on purpose.
      { key: 'joinGroup', before: 'allow', after: 'allow', explicit: true },
    ]);
    expect(meta.seenAt).toBe(5_000);
    expect(meta.promotedFrom).toEqual({ app: 'staging', ref: 'abc123def0' });
  });

  it('gives the same promotion the same id, and another app another', () => {
    const to = (name: string) =>
      promotedChange({ applied, from: 'staging', to: name, baseline: baselineFrom(undefined) }).id;
    expect(to('prod')).toBe(to('prod'));
    expect(to('prod')).not.toBe(to('eu-prod'));
  });
});

describe('promotionView', () => {
  const label = { appName: 'prod' };
  const roles = [{ role: 'default', name: 'Member' }];

  it("is that app's confirmation, naming where the change came from", () => {
    const view = promotionView({
      applied,
      from: 'staging',
      to: 'prod',
      label,
      roles,
      known: undefined,
    });
    expect(view.callback_id).toBe('perms_confirm');
    expect(submitOf(view)?.text).toBe('Apply');
    const text = JSON.stringify(view.blocks);
    expect(text).toContain('Member');
    expect(text).toContain('in *prod*');
    expect(text).toContain('Promoted from *staging*');
    expect(decodeChange(view.private_metadata)?.promotedFrom).toEqual({
      app: 'staging',
      ref: 'abc123def0',
    });
  });

  it('says so, and offers nothing to apply, when the app has no such role', () => {
    const view = promotionView({
      applied,
      from: 'staging',
      to: 'prod',
      label,
      roles: [{ role: 'admin', name: 'Admin' }],
      known: undefined,
    });
    expect(submitOf(view)).toBeUndefined();
    expect(JSON.stringify(view.blocks)).toContain('has no role `default` in *prod*');
  });

  it('refuses a change too large to carry in one confirmation', () => {
    const big: AppliedChange = {
      ...applied,
      changes: Array.from({ length: 40 }, (_, i) => ({
        key: `sendMessage.allowedCustomTypes${i}`,
        after: Array.from({ length: 10 }, (_v, j) => `custom-type-${i}-${j}`),
      })),
    };
    const view = promotionView({
      applied: big,
      from: 'staging',
      to: 'prod',
      label,
      roles,
      known: undefined,
    });
    expect(submitOf(view)).toBeUndefined();
    expect(JSON.stringify(view.blocks)).toContain('too large');
  });
});
