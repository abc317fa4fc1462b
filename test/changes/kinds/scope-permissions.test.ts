import { describe, expect, it, vi } from 'vitest';
import {
  type Change,
  changeOf,
  decodeChange,
  encodeChange,
  type ScopePermissionsChange,
  subjectOf,
} from '../../../src/changes/change.ts';
import { kindOf } from '../../../src/changes/kinds/index.ts';
import { shippedCatalogueOf } from '../../../src/changes/kinds/scope-permissions.ts';
import { revertOf } from '../../../src/changes/revert.ts';
import { CometChatError } from '../../../src/cometchat/errors.ts';
import { SHIPPED_SCOPE_CATALOGUE } from '../../../src/cometchat/scope-catalogue.ts';
import type { AuditRecord } from '../../../src/store/store.ts';
import { knownScopeKey } from '../../../src/store/store.ts';

// A group's scope's permissions (issue 48, Deliver 2): the twin of a role's, sent to the scope's
// own endpoints, known under knownScopeKey, put back from the record's "before" values.

const key = knownScopeKey('hiking', 'participant');

function change(changes: Change['changes'], seenAt?: number): ScopePermissionsChange {
  return {
    kind: 'scope-permissions',
    guid: 'hiking',
    scope: 'participant',
    role: key,
    id: 'a'.repeat(24),
    changes,
    seenAt,
  };
}

const set = (name: string, before: string, after: string) => ({
  key: name,
  before,
  after,
  explicit: false,
});
const unset = (name: string) => ({
  key: name,
  before: 'deny',
  after: 'allow',
  explicit: false,
  unset: true as const,
});

/** A client whose scope writes are spies that answer as CometChat does. */
function client() {
  return {
    setScopePermissions: vi.fn(async (_g: string, _s: string, map: Record<string, unknown>) => ({
      permissions: { ...map, listMembers: 'allow' },
      results: {},
    })),
    unsetScopePermission: vi.fn(async (_g: string, _s: string, k: string) => ({
      permissions: { rest: k },
      results: {},
    })),
    setRolePermissions: vi.fn(),
    unsetRolePermission: vi.fn(),
  };
}

describe('the scope-permissions kind', () => {
  it('knows its store key apart from any role id', () => {
    expect(key).toBe('group:hiking:participant');
    expect(key).not.toMatch(/^[a-z0-9_-]{1,100}$/);
  });

  it('sets only the changed keys on the scope, then unsets each key back to the default', async () => {
    const c = client();
    const kind = kindOf(change([set('sendMessage', 'allow', 'deny'), unset('addReaction')]));
    const sent = await kind.send(c as never);
    expect(c.setScopePermissions.mock.calls).toEqual([
      ['hiking', 'participant', { sendMessage: 'deny' }],
    ]);
    expect(c.unsetScopePermission.mock.calls).toEqual([['hiking', 'participant', 'addReaction']]);
    expect(c.setRolePermissions).not.toHaveBeenCalled();
    expect(c.unsetRolePermission).not.toHaveBeenCalled();
    expect(sent.permissions).toEqual({ rest: 'addReaction' });
    expect(sent.results.addReaction).toEqual({ success: true, message: 'back to its default' });
  });

  it('counts a key CometChat says is not set as at its default already', async () => {
    const c = {
      ...client(),
      unsetScopePermission: vi.fn(async () => {
        throw new CometChatError({
          kind: 'not_found',
          ref: 'ref0000003',
          operation: 'unsetScopePermission',
          serviceCode: 'ERR_PERMISSION_NOT_FOUND',
        });
      }),
    };
    const sent = await kindOf(change([unset('sendMessage')])).send(c as never);
    expect(sent.results.sendMessage?.message).toBe('was not set: at its default already');
  });

  it('names the group and the scope, and claims them apart from a role of the same name', () => {
    const kind = kindOf(change([set('sendMessage', 'allow', 'deny')]));
    expect(kind.name).toBe('scope `participant` of group `hiking`');
    expect(kind.target).toBe('scope:hiking:participant');
    expect(kind.target).not.toBe(kindOf({ ...change([]), kind: 'permissions' }).target);
  });

  it('is out of date when the store has a newer map of the scope than the review saw', async () => {
    const reads = (seenAt: number | undefined) => ({
      store: {
        getKnownPermissions: vi.fn(async (_app: string, role: string) =>
          seenAt === undefined ? undefined : { app: 'default', role, permissions: {}, seenAt },
        ),
      },
      app: { name: 'default', cometchat: {} as never },
    });
    const kind = kindOf(change([set('sendMessage', 'allow', 'deny')], 100));
    expect((await kind.sinceReview(reads(100))).changed).toBe(false);
    const later = reads(200);
    expect((await kind.sinceReview(later)).changed).toBe(true);
    expect(later.store.getKnownPermissions).toHaveBeenCalledWith('default', key);
  });

  it('goes through Slack and back as the same change, its subject the scope', () => {
    const made = change([set('sendMessage', 'allow', 'deny')], 5);
    expect(subjectOf(made)).toEqual({ kind: 'scope', guid: 'hiking', scope: 'participant' });
    expect(decodeChange(encodeChange(made))).toEqual(made);
  });

  it('refuses metadata whose role is not the scope it names, or a scope that is not one', () => {
    const made = change([set('sendMessage', 'allow', 'deny')]);
    const record = JSON.parse(encodeChange(made));
    expect(decodeChange(JSON.stringify({ ...record, role: 'admin' }))).toBeUndefined();
    const owner = { ...record, subject: { ...record.subject, scope: 'owner' } };
    expect(decodeChange(JSON.stringify(owner))).toBeUndefined();
    const guid = { ...record, subject: { ...record.subject, guid: 'Hiking!' } };
    expect(decodeChange(JSON.stringify(guid))).toBeUndefined();
  });

  it('has the scope keys for its defaults where no app keys are at hand', () => {
    expect(shippedCatalogueOf(change([]))).toBe(SHIPPED_SCOPE_CATALOGUE);
    expect(SHIPPED_SCOPE_CATALOGUE.spec('listMembers.allowedScopes')?.kind).toBe('fixedList');
  });
});

describe('reverting a change of a scope', () => {
  const record = (overrides: Partial<AuditRecord> = {}): AuditRecord => ({
    ref: 'ref0000010',
    at: 1_000,
    app: 'default',
    teamId: 'T1',
    userId: 'U1',
    role: key,
    subject: { kind: 'scope', guid: 'hiking', scope: 'participant' },
    changes: [{ key: 'sendMessage', before: 'deny', after: 'allow', explicit: false }],
    beforeSource: 'last-update',
    outcome: 'applied',
    ...overrides,
  });
  const now = {
    roles: [],
    defaults: SHIPPED_SCOPE_CATALOGUE.defaults(),
    known: { app: 'default', role: key, permissions: { sendMessage: 'allow' }, seenAt: 2_000 },
    group: { guid: 'hiking' },
  };

  it('puts the record’s "before" back on the same scope, as a change of the scope', () => {
    const revert = revertOf(record(), now);
    expect(revert.kind).toBe('revert');
    if (revert.kind !== 'revert') return;
    expect(revert.change).toMatchObject({
      kind: 'scope-permissions',
      guid: 'hiking',
      scope: 'participant',
      role: key,
      reverts: 'ref0000010',
      seenAt: 2_000,
      changes: [{ key: 'sendMessage', before: 'allow', after: 'deny' }],
    });
  });

  it('says there is nothing to put back when the group is gone', () => {
    const revert = revertOf(record(), { ...now, group: undefined });
    expect(revert).toEqual({
      kind: 'none',
      sentence: 'CometChat has no group `hiking` now; nothing to put back.',
    });
  });

  it('reads a stored record of a scope back as a change of the scope', () => {
    const stored = record();
    expect(changeOf({ ...stored, id: 'b'.repeat(24) }).kind).toBe('scope-permissions');
  });
});
