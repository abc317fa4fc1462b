import { compareKnownMaps, type KnownMap } from '../known-maps.ts';

// Which roles differ between two apps, pair by pair, as the Home tab tells it: the roles both
// apps list whose known maps (the map this app last set, else the documented defaults) differ,
// by compare's own rule. A role only one app lists is not a difference here, only named. Pure:
// the maps are read first (rolesToRead says which), then looked up.

/** An app the person may view, with the roles it lists, or why they are not known yet. */
export interface PairApp {
  name: string;
  roles: readonly string[] | 'loading' | 'unread';
}

/** A role both apps list, and how many keys of its known maps differ. */
export interface RoleDifference {
  role: string;
  keys: number;
}

export type PairSummary =
  | {
      state: 'compared';
      left: string;
      right: string;
      /** In the order the left app lists its roles. */
      differing: RoleDifference[];
      /** Roles only one of the two lists, in each one's order. */
      onlyLeft: string[];
      onlyRight: string[];
    }
  | {
      /** An app of the pair whose roles are not known: still asked (`loading`), or failed. */
      state: 'loading' | 'unread';
      left: string;
      right: string;
      /** The apps of the pair whose roles are not known. */
      missing: string[];
    };

/** A role's known map in an app, looked up among those read (undefined: the defaults hold). */
export type KnownLookup = (app: string, role: string) => KnownMap;

/** Every pair of apps, in the order they are configured (each app with those after it). */
function pairsOf<T>(items: readonly T[]): [T, T][] {
  return items.flatMap((left, i) => items.slice(i + 1).map((right): [T, T] => [left, right]));
}

const listed = (app: PairApp): readonly string[] => (Array.isArray(app.roles) ? app.roles : []);

/**
 * The roles whose maps the pairs need, by app: those an app lists that another app lists too. A
 * role only one app lists is never compared, so never read.
 */
export function rolesToRead(apps: readonly PairApp[]): Map<string, string[]> {
  const wanted = new Map<string, string[]>();
  for (const app of apps) {
    const others = new Set(apps.filter((a) => a !== app).flatMap(listed));
    const shared = [...new Set(listed(app))].filter((role) => others.has(role));
    if (shared.length > 0) wanted.set(app.name, shared);
  }
  return wanted;
}

/** Each pair of `apps` (those the person may view), with the roles whose known maps differ. */
export function roleDifferences(apps: readonly PairApp[], known: KnownLookup): PairSummary[] {
  return pairsOf(apps).map(([left, right]) => pairSummary(left, right, known));
}

function pairSummary(left: PairApp, right: PairApp, known: KnownLookup): PairSummary {
  const names = { left: left.name, right: right.name };
  if (!Array.isArray(left.roles) || !Array.isArray(right.roles)) {
    const missing = [left, right].filter((app) => !Array.isArray(app.roles));
    const state = missing.some((app) => app.roles === 'unread') ? 'unread' : 'loading';
    return { state, ...names, missing: missing.map((app) => app.name) };
  }
  const leftRoles = [...new Set(left.roles)];
  const rightRoles = [...new Set(right.roles)];
  const inRight = new Set(rightRoles);
  const inLeft = new Set(leftRoles);
  const differing: RoleDifference[] = [];
  for (const role of leftRoles.filter((r) => inRight.has(r))) {
    const keys = compareKnownMaps(known(left.name, role), known(right.name, role)).differing.length;
    if (keys > 0) differing.push({ role, keys });
  }
  return {
    state: 'compared',
    ...names,
    differing,
    onlyLeft: leftRoles.filter((r) => !inRight.has(r)),
    onlyRight: rightRoles.filter((r) => !inLeft.has(r)),
  };
}
