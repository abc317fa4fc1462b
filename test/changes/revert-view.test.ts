import type { View } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { checkView } from '../../offline/slack-standin/block-kit-limits.ts';
import { ChangeSchema } from '../../src/changes/change.ts';
import { type Now, type Revert, revertOf } from '../../src/changes/revert.ts';
import {
  REVERT_TITLE,
  revertButton,
  revertLines,
  revertQuestion,
  revertReviewView,
} from '../../src/changes/revert-view.ts';
import { defaultPermissions } from '../../src/cometchat/catalogue.ts';
import type { Role } from '../../src/cometchat/schemas.ts';
import { ACTIONS, CALLBACKS } from '../../src/slack/ids.ts';
import type { AuditRecord } from '../../src/store/store.ts';

// The Revert button and the review of a revert, drawn from injected records: pure.

const DEFAULTS = defaultPermissions();
const roleOf = (role: string, name = role): Role => ({ role, name, description: '' });

function record(fields: Partial<AuditRecord>): AuditRecord {
  return {
    ref: 'ref0000001',
    at: 1_700_000_000_000,
    app: 'default',
    teamId: 'T1',
    userId: 'U0OPERATOR',
    role: 'default',
    changes: [],
    beforeSource: 'service',
    outcome: 'applied',
    ...fields,
  };
}

const now = (fields: Partial<Now>): Now => ({
  roles: [roleOf('default'), roleOf('premium'), roleOf('vip')],
  defaults: DEFAULTS,
  ...fields,
});

function reverting(revert: Revert) {
  if (revert.kind !== 'revert') throw new Error(revert.sentence);
  return revert;
}

const textOf = (view: View) => JSON.stringify(view.blocks);

/** The review as a modal (a review is never a Home tab). */
function modal(view: View) {
  if (view.type !== 'modal') throw new Error('not a modal');
  return view;
}
const write = (payload: Record<string, unknown>) => JSON.stringify(payload);

const moved = record({
  role: 'premium',
  subject: { kind: 'user', uid: 'ana' },
  changes: [{ key: 'role', before: 'premium', after: 'vip', explicit: false }],
});
const ana = (role: string) => ({ uid: 'ana', name: 'Ana', role, status: 'offline' });

describe('revertButton', () => {
  it('is on an applied record only, its value the signed ref, its id naming the ref', () => {
    const button = revertButton(write, moved);
    expect(button?.action_id).toBe(`${ACTIONS.revertChange}:ref0000001`);
    expect(JSON.parse(button?.value ?? '')).toEqual({ revert: 'ref0000001' });
    expect(button?.text.text).toBe('Revert');
    expect(revertButton(write, moved, 'Revert ref0000001')?.text.text).toBe('Revert ref0000001');
    expect(revertButton(write, { ...moved, outcome: 'failed' })).toBeUndefined();
    expect(revertButton(write, { ...moved, outcome: 'unknown' })).toBeUndefined();
  });
});

describe('revertReviewView', () => {
  it('is a review like any change: Apply submits it to the same road, the revert named', () => {
    const revert = reverting(revertOf(moved, now({ user: ana('vip') })));
    const view = modal(revertReviewView(moved, revert, { write }));
    expect(view.callback_id).toBe(CALLBACKS.permissionsConfirm);
    expect(view.title.text).toBe(REVERT_TITLE);
    expect(view.submit?.text).toBe('Apply');
    const metadata = ChangeSchema.parse(JSON.parse(view.private_metadata ?? ''));
    expect(metadata).toEqual(revert.change);
    expect(metadata.reverts).toBe('ref0000001');
    expect(textOf(view)).toContain('give `ana` the role `premium` again');
    expect(textOf(view)).toContain('`role`: `vip` → *`premium`*');
    expect(checkView(view as never)).toEqual([]);
  });

  it('asks for approval, with a reason, where the app asks for approvals', () => {
    const revert = reverting(revertOf(moved, now({ user: ana('vip') })));
    const view = modal(revertReviewView(moved, revert, { write, approvalChannel: 'C0APPROVE' }));
    expect(view.submit?.text).toBe('Request approval');
    expect(textOf(view)).toContain('Ask for approval in <#C0APPROVE>');
    expect(textOf(view)).toContain('approval_reason');
  });

  it('shows what changed since the record: what is there now, and what the revert sets', () => {
    const revert = reverting(revertOf(moved, now({ user: ana('default') })));
    const lines = revertLines(revert);
    expect(lines).toContain('*Changed since this record* (what is there now):');
    expect(lines).toContain(
      '`role`: this change set `vip`; it is `default` now. The revert sets `premium`.',
    );
  });

  it('says what a deleted role cannot get back, and who to move back', () => {
    const deleted = record({
      role: 'gold',
      subject: { kind: 'role', action: 'delete' },
      changes: [{ key: 'role', before: 'gold', after: null, explicit: false }],
      movedToDefault: { uids: ['ana', 'bob'], total: 3 },
      deletedRole: { name: 'Gold' },
    });
    const revert = reverting(revertOf(deleted, now({})));
    const lines = revertLines(revert).join('\n');
    expect(lines).toContain('name: _none_ → *Gold*');
    expect(lines).toContain('*What cannot be put back:*');
    expect(lines).toContain('This app never saw the permissions of `gold`');
    expect(lines).toContain('the role is created with the default permissions');
    expect(lines).toContain('The deletion left 3 users with `default`');
    expect(lines).toContain('`ana`, `bob`, and 1 more');
    expect(revertQuestion(deleted, revert)).toContain('create role `gold` again');
  });

  it('says a "before" that was only the documented default cannot be put back', () => {
    const guessed = record({
      role: 'vip',
      beforeSource: 'defaults',
      changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
    });
    const known = { app: 'default', role: 'vip', permissions: { sendMessage: 'deny' }, seenAt: 5 };
    const revert = reverting(revertOf(guessed, now({ known })));
    const lines = revertLines(revert).join('\n');
    expect(lines).toContain('its value before this change was never read from CometChat');
    expect(lines).toContain('any other value it had cannot be put back');
  });

  it('says who holds a role it would delete', () => {
    const created = record({
      role: 'vip',
      subject: { kind: 'role', action: 'create' },
      changes: [{ key: 'name', before: null, after: 'VIP', explicit: false }],
    });
    const revert = reverting(revertOf(created, now({ holders: 2 })));
    const question = revertQuestion(created, revert, 'prod');
    expect(question).toContain('delete role `vip`, which it created');
    expect(question).toContain('in *prod*');
    expect(question).toContain('2 users hold it');
    expect(question).toContain('leaves them with `default`');
  });

  it('offers no review too large for Slack to carry back, and says what to do instead', () => {
    const many = Object.fromEntries(
      Array.from({ length: 120 }, (_, i) => [`custom.key.number.${i}`, `value-${i}`]),
    );
    const deleted = record({
      role: 'big',
      subject: { kind: 'role', action: 'delete' },
      changes: [{ key: 'role', before: 'big', after: null, explicit: false }],
      deletedRole: { name: 'Big', permissions: many, seenAt: 1 },
    });
    const revert = reverting(revertOf(deleted, now({})));
    const view = modal(revertReviewView(deleted, revert, { write }));
    expect(view.submit).toBeUndefined();
    expect(textOf(view)).toContain('too large to carry through Slack');
  });
});
