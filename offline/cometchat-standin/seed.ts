import { z } from 'zod';
import { checkPermissionUpdate, defaultPermissionMap } from './permission-catalogue.ts';
import { generatePresenterCall } from './presenter-call.ts';
import callsJson from './seed/calls.json' with { type: 'json' };
import rolePermissionsJson from './seed/role-permissions.json' with { type: 'json' };
import rolesJson from './seed/roles.json' with { type: 'json' };
import { RoleSchema, type SandboxState, type SeededCall, SeededCallSchema } from './state.ts';

/** The seeded calls by what they are; README.md describes each. */
export const SANDBOX_SESSION_IDS = Object.freeze({
  /** 1:1 audio call that ended; both participants `ended`; `data` is an array. */
  audioEnded: 'v1.us.sandbox-app.1700000000abcdef0001',
  /** 1:1 video call the receiver never answered; `data` is an object. */
  unanswered: 'v1.us.sandbox-app.1700003600abcdef0002',
  /** 1:1 video call the receiver rejected; `data` is an array. */
  videoRejected: 'v1.us.sandbox-app.1700007200abcdef0003',
  /** Ongoing group meeting, 12 participants in every state; `data` is an object. */
  groupOngoing: 'v1.us.sandbox-app.1700010800abcdef0004',
  /** Ended 1:1 video call with two recordings; `data` is an array. */
  withRecordings: 'v1.us.sandbox-app.1700014400abcdef0005',
  /** Presenter-mode call with 300 generated participants; `data` is an object. */
  presenter300: 'v1.us.sandbox-app.1700018000abcdef0006',
  /** No `data.entities`; participant names carry Slack mention syntax; `data` is an array. */
  noEntities: 'v1.us.sandbox-app.1700021600abcdef0007',
  /**
   * An id a client SDK chose freely: a space, `#`, `?`, `&`, a literal `%25` and a non-ASCII
   * letter. Found only when the client encodes it as one path segment, exactly once.
   */
  customId: 'support room #42?x=1&y=50%25 é',
} as const);

export type SandboxSessionName = keyof typeof SANDBOX_SESSION_IDS;

const RolesSeedSchema = z.array(RoleSchema).min(1);
const RolePermissionsSeedSchema = z.record(z.string(), z.record(z.string(), z.unknown()));
const CallsSeedSchema = z.array(SeededCallSchema);

/**
 * A fresh copy of the seed: the hand-written data files (parsed, so a typo in them fails loudly
 * here rather than as a puzzling response) plus the generated presenter call. Every call
 * returns new objects, so sandboxes never share state.
 */
export function loadSeed(): SandboxState {
  const roles = RolesSeedSchema.parse(structuredClone(rolesJson));
  const roleIds = new Set(roles.map((r) => r.role));
  if (!roleIds.has('default')) throw new Error('seed: the role "default" must exist');

  const permissions = new Map(roles.map((r) => [r.role, defaultPermissionMap()]));
  const overrides = RolePermissionsSeedSchema.parse(structuredClone(rolePermissionsJson));
  for (const [role, update] of Object.entries(overrides)) {
    const current = permissions.get(role);
    if (current === undefined) throw new Error(`seed: permissions for unknown role "${role}"`);
    const checked = checkPermissionUpdate(update, roleIds);
    if (!checked.ok) {
      throw new Error(`seed: bad permissions for "${role}": ${JSON.stringify(checked.details)}`);
    }
    permissions.set(role, { ...current, ...checked.permissions });
  }

  const seeded: SeededCall[] = [
    ...CallsSeedSchema.parse(structuredClone(callsJson)),
    { shape: 'object', record: generatePresenterCall(SANDBOX_SESSION_IDS.presenter300) },
  ];
  const calls = new Map(seeded.map((call) => [call.record.sessionId, call]));
  for (const [name, id] of Object.entries(SANDBOX_SESSION_IDS)) {
    if (!calls.has(id)) throw new Error(`seed: no call for SANDBOX_SESSION_IDS.${name}`);
  }
  return { roles, permissions, calls };
}
