import { describe, expect, it } from 'vitest';
import type { Access } from '../../src/access/access.ts';
import { type ApplyDeps, type Applying, applyChange, STORE_DOWN } from '../../src/changes/apply.ts';
import type { PermissionsChange } from '../../src/changes/change.ts';
import type { AuditTrail } from '../../src/changes/record.ts';
import { UNKNOWN_OUTCOME } from '../../src/changes/record.ts';
import { CometChatError } from '../../src/cometchat/errors.ts';
import type { PermissionUpdate } from '../../src/cometchat/model.ts';
import type { PermissionMap } from '../../src/cometchat/schemas.ts';
import { createLogger } from '../../src/log.ts';
import { runInRequest } from '../../src/request-context.ts';
import {
  type AuditRecord,
  createMemoryStore,
  DEFAULT_APP,
  type Store,
} from '../../src/store/store.ts';
import { LogCapture } from '../log-capture.ts';

// The apply step alone: every dependency is a fake a test controls, and the clock is fixed.

const NOW = 1_800_000_000_000;

const meta: PermissionsChange = {
  kind: 'permissions',
  role: 'default',
  id: 'a'.repeat(24),
  changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
  seenAt: NOW - 60_000,
};

function setup(
  options: {
    refusal?: string;
    update?: (role: string, payload: PermissionMap) => Promise<PermissionUpdate>;
    store?: Store;
    /** What the store knows of the role when the change is sent; the reviewed map by default. */
    known?: 'reviewed' | 'none';
  } = {},
) {
  const sent: { role: string; payload: PermissionMap }[] = [];
  const audited: AuditRecord[] = [];
  const logs = new LogCapture();
  const store = options.store ?? createMemoryStore(() => NOW);
  // The map the review was made against, as the store still has it (the memory store keeps it
  // at once: nothing in it waits).
  if (options.known !== 'none') {
    void store.setKnownPermissions({
      app: DEFAULT_APP,
      role: 'default',
      permissions: { sendMessage: 'allow' },
      seenAt: meta.seenAt ?? 0,
    });
  }
  const audit: AuditTrail = {
    async record(record) {
      audited.push(record);
      return { stored: true };
    },
  };
  const deps: ApplyDeps = { store, audit, now: () => NOW };
  const app: Applying['app'] = {
    name: DEFAULT_APP,
    access: { editRefusal: async () => options.refusal } as unknown as Access,
    cometchat: {
      async setRolePermissions(role: string, payload: PermissionMap) {
        sent.push({ role, payload });
        if (options.update) return options.update(role, payload);
        return {
          permissions: { ...payload, joinGroup: 'allow' },
          results: { sendMessage: { success: true, message: 'mapped' } },
        };
      },
      // A permission change never touches a user.
      setUserRole: () => Promise.reject(new Error('not a user change')),
      deactivateUsers: () => Promise.reject(new Error('not a user change')),
      reactivateUsers: () => Promise.reject(new Error('not a user change')),
      getUser: () => Promise.reject(new Error('not a user change')),
      listUsers: () => Promise.reject(new Error('not a user change')),
      // Nor a message under moderation.
      decideFlaggedMessage: () => Promise.reject(new Error('not a moderation decision')),
      decideBlockedMessage: () => Promise.reject(new Error('not a moderation decision')),
      listFlaggedMessages: () => Promise.reject(new Error('not a moderation decision')),
      listBlockedMessages: () => Promise.reject(new Error('not a moderation decision')),
      // Nor a role itself, nor an unset (those are tested in role-changes.test.ts).
      unsetRolePermission: () => Promise.reject(new Error('no unset here')),
      createRole: () => Promise.reject(new Error('not a role change')),
      updateRole: () => Promise.reject(new Error('not a role change')),
      deleteRole: () => Promise.reject(new Error('not a role change')),
      listAllRoles: () => Promise.reject(new Error('not a role change')),
      getMessage: () => Promise.reject(new Error('not a deletion of messages')),
      deleteMessage: () => Promise.reject(new Error('not a deletion of messages')),
      getRule: () => Promise.reject(new Error('not a rule change')),
      updateRule: () => Promise.reject(new Error('not a rule change')),
      // Nor an account in trouble.
      revokeAllSessions: () => Promise.reject(new Error('not a containment')),
      banGroupMember: () => Promise.reject(new Error('not a containment')),
      unbanGroupMember: () => Promise.reject(new Error('not a containment')),
      listMessages: () => Promise.reject(new Error('not a containment')),
      listSessions: () => Promise.reject(new Error('not a sessions change')),
      // Nor a group's scope.
      setScopePermissions: () => Promise.reject(new Error('not a scope change')),
      unsetScopePermission: () => Promise.reject(new Error('not a scope change')),
      // Nor a group's member.
      setMemberScope: () => Promise.reject(new Error('not a group member change')),
      kickGroupMember: () => Promise.reject(new Error('not a group member change')),
      listGroupMembers: () => Promise.reject(new Error('not a group member change')),
      listBannedMembers: () => Promise.reject(new Error('not a group member change')),
      revokeSession: () => Promise.reject(new Error('not a sessions change')),
    },
  };
  const context = {
    ref: 'ref0000001',
    log: createLogger({ level: 'debug', destination: logs }),
    receivedAt: NOW,
  };
  const request: Applying = { app, change: meta, userId: 'U0EDITOR', teamId: 'T0TEAM' };
  // The apply step runs inside a request: its reference and logger are the request's.
  const apply = (deps: ApplyDeps, applying: Applying) =>
    runInRequest(context, () => applyChange(deps, applying));
  return { deps, request, sent, audited, store, logs, apply };
}

describe('applyChange', () => {
  it('sends exactly the confirmed keys once, remembers the answer with its reference and records it', async () => {
    const { deps, request, sent, audited, store, apply } = setup();
    const outcome = await apply(deps, request);
    expect(outcome.kind).toBe('applied');
    expect(sent).toEqual([{ role: 'default', payload: { sendMessage: 'deny' } }]);
    expect(await store.getKnownPermissions(DEFAULT_APP, 'default')).toEqual({
      app: DEFAULT_APP,
      role: 'default',
      permissions: { sendMessage: 'deny', joinGroup: 'allow' },
      seenAt: NOW,
      // The change's reference: the same as its audit record's, so the map can be traced to it.
      ref: 'ref0000001',
    });
    expect(audited).toEqual([
      {
        ref: 'ref0000001',
        at: NOW,
        app: DEFAULT_APP,
        teamId: 'T0TEAM',
        userId: 'U0EDITOR',
        role: 'default',
        changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
        beforeSource: 'last-update',
        outcome: 'applied',
        serviceMessage: 'sendMessage: mapped',
      },
    ]);
  });

  it('sends nothing for someone who may not edit, and says why', async () => {
    const { deps, request, sent, audited, logs, apply } = setup({ refusal: 'Only editors may.' });
    expect(await apply(deps, request)).toEqual({
      kind: 'refused',
      sentence: 'Only editors may.',
    });
    expect(sent).toHaveLength(0);
    expect(audited).toHaveLength(0);
    const refused = logs.records().find((r) => r.cometchat_ops.attempt === 'confirm');
    expect(refused?.user?.id).toBe('U0EDITOR');
  });

  it('applies a repeated confirmation once', async () => {
    const { deps, request, sent, apply } = setup();
    const outcomes = await Promise.all([apply(deps, request), apply(deps, request)]);
    expect(outcomes.map((o) => o.kind).sort()).toEqual(['applied', 'repeated']);
    expect(sent).toHaveLength(1);
  });

  it('records a failure, and lets a new attempt of the same change through', async () => {
    let fail = true;
    const { deps, request, sent, audited, apply } = setup({
      update: async (_role, payload) => {
        if (fail) {
          throw new CometChatError({
            kind: 'unavailable',
            ref: 'ref0000001',
            operation: 'setRolePermissions',
            status: 503,
            serviceCode: 'ERR_DOWN',
          });
        }
        return { permissions: payload, results: {} };
      },
    });
    const first = await apply(deps, request);
    expect(first.kind).toBe('failed');
    expect(audited[0]).toMatchObject({
      outcome: 'failed',
      errorKind: 'unavailable',
      serviceMessage: 'ERR_DOWN',
    });
    fail = false;
    expect((await apply(deps, request)).kind).toBe('applied');
    expect(sent).toHaveLength(2);
  });

  it('shows the applied change even when the store cannot remember it', async () => {
    const { deps, request, logs, apply, store } = setup();
    store.setKnownPermissions = async () => {
      throw new Error('disk full');
    };
    const outcome = await apply(deps, request);
    expect(outcome.kind).toBe('applied');
    expect(logs.records().some((r) => r.message === 'last known permissions not stored')).toBe(
      true,
    );
  });

  it('sends nothing when the claim cannot be taken (the store is down)', async () => {
    const store = createMemoryStore(() => NOW);
    store.claim = async () => {
      throw new Error('store unreachable');
    };
    const { deps, request, sent, apply } = setup({ store });
    const outcome = await apply(deps, request);
    expect(outcome).toMatchObject({ kind: 'not-sent', sentence: STORE_DOWN });
    expect(sent).toHaveLength(0);
  });

  it('marks "before" as the defaults when the editor showed no last-known values', async () => {
    const { deps, request, audited, apply } = setup({ known: 'none' });
    await apply(deps, { ...request, change: { ...meta, seenAt: undefined } });
    expect(audited[0]?.beforeSource).toBe('defaults');
  });

  it('stores the intent before anything is sent: the record an unanswered update becomes', async () => {
    const store = createMemoryStore(() => NOW);
    let atSend: unknown[] = [];
    const { deps, request, apply } = setup({
      store,
      update: async (_role, payload) => {
        atSend = await store.listPending(Number.POSITIVE_INFINITY);
        return { permissions: payload, results: {} };
      },
    });
    await apply(deps, request);
    expect(atSend).toEqual([
      expect.objectContaining({
        ref: 'ref0000001',
        outcome: 'unknown',
        serviceMessage: UNKNOWN_OUTCOME,
        changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
      }),
    ]);
  });

  it('sends nothing when the intent cannot be stored, and lets a retry through', async () => {
    const store = createMemoryStore(() => NOW);
    const putPending = store.putPending;
    store.putPending = async () => {
      throw new Error('store unreachable');
    };
    const { deps, request, sent, audited, apply } = setup({ store });
    const outcome = await apply(deps, request);
    expect(outcome.kind).toBe('not-sent');
    expect(sent).toHaveLength(0);
    expect(audited).toHaveLength(0);
    store.putPending = putPending;
    expect((await apply(deps, request)).kind).toBe('applied');
    expect(sent).toHaveLength(1);
  });

  it('refuses a change while another change of its target is under way, as out of date', async () => {
    const { deps, request, sent, audited, store, apply } = setup();
    // Another change of the role `default` in this app holds its target.
    await store.claim('target:default:role:default', 120);
    expect(await apply(deps, request)).toEqual({
      kind: 'stale',
      sentence: expect.stringContaining('The role changed since you reviewed this'),
    });
    expect(sent).toHaveLength(0);
    expect(audited).toHaveLength(0);
    // Once the other change is done, this one goes through: its own claim was let go.
    await store.release('target:default:role:default');
    expect((await apply(deps, request)).kind).toBe('applied');
    // ...and the target is free again for the next change.
    expect(await store.claim('target:default:role:default', 120)).toBe(true);
  });

  it("refuses a change of permissions whose role's map moved on since the review", async () => {
    const { deps, request, sent, store, apply } = setup();
    await store.setKnownPermissions({
      app: DEFAULT_APP,
      role: 'default',
      permissions: { sendMessage: 'deny' },
      seenAt: NOW - 1_000,
    });
    expect((await apply(deps, request)).kind).toBe('stale');
    expect(sent).toHaveLength(0);
    expect(await store.listPending(Number.POSITIVE_INFINITY)).toEqual([]);
  });
});
