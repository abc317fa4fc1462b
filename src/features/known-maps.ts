import { type Catalogue, SHIPPED_CATALOGUE, sameValue } from '../cometchat/catalogue.ts';
import type { PermissionValue } from '../cometchat/schemas.ts';
import type { SetByThisApp } from '../replies/sentences.ts';
import type { KnownPermissions } from '../store/store.ts';

// Two roles' permissions as this app knows them, key by key. CometChat offers no read of a
// role's configured permissions, so what is known of a role is the map its last update through
// this app answered, else (a role the app never changed) the documented defaults. Pure; shared by
// the compare feature and the Home tab's roles that differ between apps.

/** What the app knows of one role: the map it last set, or nothing (the defaults hold). */
export type KnownMap = Pick<KnownPermissions, 'permissions' | 'seenAt' | 'ref'> | undefined;

/** One side's value of a key, and where it came from. */
export type SideValue =
  | { source: 'set'; value: PermissionValue; set: SetByThisApp }
  | { source: 'default'; value: PermissionValue }
  /** A key the catalogue does not document, and this side's map (if any) does not hold. */
  | { source: 'none' };

export interface KeyDifference {
  key: string;
  left: SideValue;
  right: SideValue;
}

export interface Comparison {
  /** The keys whose values differ, in the catalogue's order (its categories, then its keys). */
  differing: KeyDifference[];
  /** How many keys have the same value on both sides. */
  equal: number;

  /** Whether each side has a map this app set (else all its values are documented defaults). */
  known: { left: boolean; right: boolean };
}

/** A catalogue's keys as the editor shows them: category by category. */
function catalogueOrder(catalogue: Catalogue): readonly string[] {
  return catalogue.categories.flatMap((category) =>
    catalogue.inCategory(category).map((spec) => spec.key),
  );
}

/**
 * Compares two known maps key by key: every key of the catalogue (the shipped one, a role's, by
 * default; a group's scope's has keys of its own), and any key a map holds that the catalogue
 * lacks (the service may know keys the catalogue does not), after the catalogue's, in
 * alphabetical order.
 */
export function compareKnownMaps(
  left: KnownMap,
  right: KnownMap,
  catalogue: Catalogue = SHIPPED_CATALOGUE,
): Comparison {
  const order = catalogueOrder(catalogue);
  const catalogued = new Set(order);
  const others = [
    ...new Set([...Object.keys(left?.permissions ?? {}), ...Object.keys(right?.permissions ?? {})]),
  ]
    .filter((key) => !catalogued.has(key))
    .sort();
  const differing: KeyDifference[] = [];
  let equal = 0;
  for (const key of [...order, ...others]) {
    const sides = {
      key,
      left: sideValue(left, key, catalogue),
      right: sideValue(right, key, catalogue),
    };
    if (sameSide(sides.left, sides.right)) equal += 1;
    else differing.push(sides);
  }
  return { differing, equal, known: { left: left !== undefined, right: right !== undefined } };
}

/** A key's value on one side: from the map the app set when it holds the key, else the default. */
export function sideValue(
  known: KnownMap,
  key: string,
  catalogue: Catalogue = SHIPPED_CATALOGUE,
): SideValue {
  if (known && Object.hasOwn(known.permissions, key)) {
    const { seenAt, ref } = known;
    return { source: 'set', value: known.permissions[key] ?? null, set: { seenAt, ref } };
  }
  const spec = catalogue.spec(key);
  return spec ? { source: 'default', value: spec.default } : { source: 'none' };
}

/** The editor's rule for two values (catalogue.ts); a value not known equals only another. */
function sameSide(a: SideValue, b: SideValue): boolean {
  if (a.source === 'none' || b.source === 'none') return a.source === b.source;
  return sameValue(a.value, b.value);
}
