import { defaultPermissionMap, defaultValueOf } from './permission-catalogue.ts';
import type { PermissionMap, SandboxState } from './state.ts';

// A role's permissions as the state keeps them: the effective map (what the update's answer
// shows) in `state.permissions`, and which of its keys were set explicitly in
// `state.explicitPermissionKeys`. Only explicitly set keys can be unset, and unsetting one puts
// its default back. Every write goes through here, the seed's included, so the two agree.

/** The role's effective map, the catalogue defaults for a role without an entry. */
export function effectivePermissions(state: SandboxState, roleId: string): PermissionMap {
  return state.permissions.get(roleId) ?? defaultPermissionMap();
}

/** Gives a new role the catalogue defaults and nothing set explicitly. */
export function startRolePermissions(state: SandboxState, roleId: string): void {
  state.permissions.set(roleId, defaultPermissionMap());
  state.explicitPermissionKeys.set(roleId, new Set());
}

/** Sets keys explicitly (already checked); answers the effective map after. */
export function writePermissions(
  state: SandboxState,
  roleId: string,
  written: PermissionMap,
): PermissionMap {
  const effective = { ...effectivePermissions(state, roleId), ...written };
  state.permissions.set(roleId, effective);
  const explicit = state.explicitPermissionKeys.get(roleId) ?? new Set<string>();
  for (const key of Object.keys(written)) explicit.add(key);
  state.explicitPermissionKeys.set(roleId, explicit);
  return effective;
}

/**
 * Unsets one explicitly set key: back to its default, or gone for a key the catalogue has no
 * default for (an unknown key exists only while set). Answers the effective map after, or
 * undefined when the key was not set explicitly.
 */
export function unsetPermission(
  state: SandboxState,
  roleId: string,
  key: string,
): PermissionMap | undefined {
  const explicit = state.explicitPermissionKeys.get(roleId);
  if (explicit?.has(key) !== true) return undefined;
  explicit.delete(key);
  const effective = { ...effectivePermissions(state, roleId) };
  const fallback = defaultValueOf(key);
  if (fallback === undefined) delete effective[key];
  else effective[key] = fallback;
  state.permissions.set(roleId, effective);
  return effective;
}

/** Forgets a deleted role's permissions. */
export function forgetRolePermissions(state: SandboxState, roleId: string): void {
  state.permissions.delete(roleId);
  state.explicitPermissionKeys.delete(roleId);
}
