import { type Catalogue, SHIPPED_CATALOGUE, sameValue } from '../../cometchat/catalogue.ts';
import { isCometChatError } from '../../cometchat/errors.ts';
import type { PermissionUpdate } from '../../cometchat/model.ts';
import type { PermissionMap } from '../../cometchat/schemas.ts';
import { ChangeNotTaken } from '../../replies/failure.ts';
import { permissionKeyText } from '../../replies/permission-key-text.ts';
import { code } from '../../slack/mrkdwn.ts';
import type { KnownPermissions } from '../../store/store.ts';
import { changePayload, type KeyChange, type PermissionsChange } from '../change.ts';
import { type Kind, NO_FACTS, type Sent } from './kind.ts';

// A role's permissions: the keys set by one update, then each key going back to its default
// unset by CometChat's own unset. CometChat offers no read of a role's map, so "is it still as
// reviewed?" is asked of the map the app last saw (the store): another change of the role since
// the review makes it out of date.

/** What the editor shows before any edit, and a change's "before": the last known values. */
export interface Baseline {
  values: PermissionMap;
  /** When the values come from an update's answer; undefined means the documented defaults. */
  seenAt?: number | undefined;
}

/** The last known values over `catalogue`'s defaults. Pure. */
export function baselineFrom(
  known: KnownPermissions | undefined,
  catalogue: Catalogue = SHIPPED_CATALOGUE,
): Baseline {
  return known
    ? { values: { ...catalogue.defaults(), ...known.permissions }, seenAt: known.seenAt }
    : { values: catalogue.defaults() };
}

/**
 * The same keys with each "before" (and so whether it is sent only explicitly) taken from
 * `baseline`, the server's last known values, whatever submitted metadata said of them. Pure.
 */
export function withBeforeFrom(changes: readonly KeyChange[], baseline: Baseline): KeyChange[] {
  return changes.map(({ key, after, unset }) => {
    const before = baseline.values[key];
    // An unset is sent whatever the value shows: the key is to follow the default from now on.
    return unset
      ? { key, before, after, explicit: false, unset }
      : { key, before, after, explicit: sameValue(before, after) };
  });
}

const OUT_OF_DATE =
  'The role changed since you reviewed this (someone applied another change), so nothing was sent. Open the editor again to review on its new values.';

export function permissionsKind(change: PermissionsChange): Kind {
  return {
    target: `role:${change.role}`,
    name: code(change.role),
    done: keysAtDefaultDone(change.changes),
    outOfDate: OUT_OF_DATE,
    logged: 'permissions updated',
    send: (client) =>
      sendPermissionMap(
        {
          name: code(change.role),
          set: (map) => client.setRolePermissions(change.role, map),
          unset: (key) => client.unsetRolePermission(change.role, key),
        },
        change.changes,
      ),
    async sinceReview({ store, app }) {
      const known = await store.getKnownPermissions(app.name, change.role);
      return { changed: known?.seenAt !== change.seenAt, has: false, known };
    },
    recordFacts: NO_FACTS,
  };
}

/** How one permission map is written: a role's, or a group's scope's (the same form). */
export interface MapWrites {
  /** What it acts on, in mrkdwn ("`vip`"), for a change that took only in part. */
  name: string;
  set(permissions: PermissionMap): Promise<PermissionUpdate>;
  unset(key: string): Promise<PermissionUpdate>;
}

/** One key unset; a key CometChat says is not set is at its default already (undefined). */
function unsetOnce(writes: MapWrites, key: string) {
  return writes.unset(key).catch((error: unknown) => {
    if (isCometChatError(error) && error.serviceCode === 'ERR_PERMISSION_NOT_FOUND') {
      return undefined;
    }
    throw error;
  });
}

/**
 * A reset that failed after other keys of the same change were applied: part of it took, so
 * the outcome is not known as a whole (recorded as unknown; the editor shows the role again).
 */
function partlySent(name: string, key: string, error: unknown): ChangeNotTaken {
  const why = isCometChatError(error) ? error.kind : 'an error inside the app';
  const said = `applied part of the change but not the reset of ${key} (${why})`;
  return new ChangeNotTaken(
    name,
    {
      plain: said,
      mrkdwn: `applied part of the change but not the reset of ${code(key)} (${why})`,
    },
    true,
  );
}

/**
 * The keys to set in one update, then each key to unset (back to its default) by CometChat's own
 * unset, one request a key. The last answer holds the map. A key CometChat says is not set is at
 * its default already, which is what was asked.
 */
export async function sendPermissionMap(
  writes: MapWrites,
  changes: readonly KeyChange[],
): Promise<Sent> {
  const toSet = changePayload(changes.filter((c) => !c.unset));
  let sent: Sent = { results: {} };
  if (Object.keys(toSet).length > 0) sent = await writes.set(toSet);
  for (const { key } of changes.filter((c) => c.unset)) {
    const unset = await unsetOnce(writes, key).catch((error: unknown) => {
      throw Object.keys(sent.results).length > 0 || sent.permissions
        ? partlySent(writes.name, key, error)
        : error;
    });
    const message = unset ? 'back to its default' : 'was not set: at its default already';
    sent = {
      results: { ...sent.results, [key]: { success: true, message } },
      permissions: unset?.permissions ?? sent.permissions,
    };
  }
  return sent;
}

/**
 * A change of a role's permissions whose answer held no map: one that only unset keys, none of
 * them set, so each was at its default already (sendPermissions); nothing else answers without
 * one. Pure.
 */
export function keysAtDefaultDone(changes: readonly { key: string }[]): string {
  const keys = changes.map(({ key }) => permissionKeyText(key)).join(', ');
  const one = changes.length === 1;
  return `${keys} ${one ? 'was' : 'were'} not set in CometChat: ${one ? 'it was at its' : 'each was at its'} default already`;
}
