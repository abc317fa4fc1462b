import { describe, expect, it } from 'vitest';
import { decodeChange } from '../../src/changes/change.ts';
import {
  type AppliedChange,
  AppliedChangeSchema,
  promotionMetadata,
  scopePromotionView,
} from '../../src/changes/promote.ts';
import { SHIPPED_SCOPE_CATALOGUE } from '../../src/cometchat/scope-catalogue.ts';
import { knownScopeKey } from '../../src/store/store.ts';

// A change of a group's scope applied to one app, offered to the same group's same scope in
// another (issue 48, Deliver 2): pure, no Slack, no service.

const subject = { kind: 'scope' as const, guid: 'hiking', scope: 'moderator' as const };
const applied: AppliedChange = {
  role: knownScopeKey('hiking', 'moderator'),
  ref: 'abc123def0',
  changes: [{ key: 'sendMessage', after: 'deny' }],
  subject,
};
const input = {
  applied,
  subject,
  from: 'staging',
  to: 'prod',
  label: {},
  catalogue: SHIPPED_SCOPE_CATALOGUE,
};

describe('promoting a change of a scope', () => {
  it("is the other app's review of the same keys on the same group's scope", () => {
    const known = {
      app: 'prod',
      role: applied.role,
      permissions: { sendMessage: 'allow' },
      seenAt: 7_000,
    };
    const view = scopePromotionView({ ...input, group: { name: 'Hiking' }, known });
    const change = decodeChange(view.private_metadata);
    expect(change).toMatchObject({
      kind: 'scope-permissions',
      guid: 'hiking',
      scope: 'moderator',
      role: 'group:hiking:moderator',
      seenAt: 7_000,
      changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
    });
    expect(JSON.stringify(view.blocks)).toContain('the scope `moderator` of group `hiking`');
  });

  it('says in one sentence that the other app has no such group, and offers nothing', () => {
    const view = scopePromotionView({ ...input, group: undefined, known: undefined });
    expect(view.private_metadata).toBeUndefined();
    expect(JSON.stringify(view.blocks)).toContain(
      'CometChat has no group `hiking`, so the change cannot be applied there. Nothing was sent.',
    );
  });

  it('carries the scope in the result, and refuses one whose key is not the scope it names', () => {
    const metadata = promotionMetadata(
      {
        kind: 'scope-permissions',
        guid: 'hiking',
        scope: 'moderator',
        role: applied.role,
        id: 'c'.repeat(24),
        changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
      },
      'abc123def0',
      {},
    );
    expect(AppliedChangeSchema.parse(JSON.parse(metadata ?? ''))).toEqual(applied);
    expect(AppliedChangeSchema.safeParse({ ...applied, role: 'moderator' }).success).toBe(false);
    expect(AppliedChangeSchema.safeParse({ ...applied, subject: undefined }).success).toBe(false);
  });
});
