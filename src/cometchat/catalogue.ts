import { z } from 'zod';
import catalogueData from './permissions.json' with { type: 'json' };
import { type PermissionMap, type PermissionValue, ROLE_ID } from './schemas.ts';

// The catalogue of documented permission keys (carried in from CometChat's RBAC tables as
// data). It drives the editor's fields and the validation below. The live service may know
// keys this list does not: those are kept and passed through, never rejected. An app's own
// catalogue is this one merged with the definitions its CometChat gives (see `Catalogue`).

/** What people read for a key (CometChat's dashboard names them so: "Message Sending"). */
const Label = z.string().min(1).max(60);

const PermissionSpecSchema = z.discriminatedUnion('kind', [
  z.object({
    key: z.string(),
    label: Label,
    category: z.string(),
    kind: z.enum(['action', 'mode']),
    values: z.array(z.string()).min(2),
    default: z.string(),
    note: z.string().optional(),
  }),
  z.object({
    key: z.string(),
    label: Label,
    category: z.string(),
    kind: z.literal('fixedList'),
    values: z.array(z.string()).min(1),
    default: z.array(z.string()).nullable(),
    note: z.string().optional(),
  }),
  z.object({
    key: z.string(),
    label: Label,
    category: z.string(),
    kind: z.enum(['roleList', 'freeList']),
    default: z.array(z.string()).nullable(),
    note: z.string().optional(),
  }),
]);
export type PermissionSpec = z.infer<typeof PermissionSpecSchema>;
export type PermissionKind = PermissionSpec['kind'];

export const CatalogueSchema = z.object({ permissions: z.array(PermissionSpecSchema).min(1) });

export const PERMISSIONS: readonly PermissionSpec[] = Object.freeze(
  CatalogueSchema.parse(catalogueData).permissions,
);

/** A key as one app's catalogue has it: its spec, and what that app's CometChat says of it. */
export type CatalogueSpec = PermissionSpec & {
  /** The service's description of the key, when it gave one. */
  description?: string | undefined;
  /** The shipped catalogue has the key, but the app's CometChat no longer defines it. */
  undefinedByService?: boolean | undefined;
};

/**
 * The permission keys one app's editor shows: the shipped catalogue, merged with the definitions
 * that app's CometChat gives (catalogue-merge.ts), or the shipped catalogue alone. A plain value:
 * the editor's pure functions take it, so they show what the app's CometChat defines.
 */
export interface Catalogue {
  /**
   * Where the keys come from: the service's definitions merged over the shipped catalogue, the
   * shipped catalogue alone, or (`fallback`) the shipped catalogue because the definitions could
   * not be read.
   */
  readonly source: 'service' | 'shipped' | 'fallback';
  /** Every key: the shipped catalogue's in its order, then those only the service defines. */
  readonly specs: readonly CatalogueSpec[];
  /** The categories in the editor's order; `Other` last, when the service defines keys of its own. */
  readonly categories: readonly string[];
  spec(key: string): CatalogueSpec | undefined;
  inCategory(category: string): readonly CatalogueSpec[];
  /** What people read for a key ("Message Sending"); undefined for a key the catalogue lacks. */
  labelOf(key: string): string | undefined;
  /** The defaults: what a role's permissions are until a key is set explicitly. */
  defaults(): PermissionMap;
  /** A key's place in `specs`; a key the catalogue lacks comes after every other. */
  order(key: string): number;
}

/** The category of the keys the app's CometChat defines and the shipped catalogue lacks. */
export const OTHER_CATEGORY = 'Other';

/** A catalogue of `specs`, in their order (worked out once: the editor asks several times a render). */
export function catalogueOf(
  specs: readonly CatalogueSpec[],
  source: Catalogue['source'],
): Catalogue {
  const ordered = Object.freeze([...specs]);
  const categories = Object.freeze([...new Set(ordered.map((spec) => spec.category))]);
  const byKey = new Map(ordered.map((spec, index) => [spec.key, { spec, index }]));
  const byCategory = new Map(
    categories.map((category) => [
      category,
      Object.freeze(ordered.filter((spec) => spec.category === category)),
    ]),
  );
  const defaults: Readonly<PermissionMap> = Object.freeze(
    Object.fromEntries(ordered.map((spec) => [spec.key, spec.default])),
  );
  return Object.freeze({
    source,
    specs: ordered,
    categories,
    spec: (key: string) => byKey.get(key)?.spec,
    inCategory: (category: string) => byCategory.get(category) ?? [],
    labelOf: (key: string) => byKey.get(key)?.spec.label,
    defaults: () => ({ ...defaults }),
    order: (key: string) => byKey.get(key)?.index ?? ordered.length,
  });
}

/** The catalogue this app ships: for what needs no app's own, and when an app's cannot be read. */
export const SHIPPED_CATALOGUE: Catalogue = catalogueOf(PERMISSIONS, 'shipped');

/** The shipped catalogue, standing in for an app's whose definitions could not be read. */
export const FALLBACK_CATALOGUE: Catalogue = Object.freeze({
  ...SHIPPED_CATALOGUE,
  source: 'fallback',
});

export function permissionSpec(key: string): PermissionSpec | undefined {
  return SHIPPED_CATALOGUE.spec(key);
}

/** What people read for a key of the shipped catalogue ("Message Sending"), else undefined. */
export function labelOf(key: string): string | undefined {
  return SHIPPED_CATALOGUE.labelOf(key);
}

/**
 * Whether the values of a change's `key` are role ids, which replies show as code so they copy
 * exactly: a role list of the catalogue (`sendMessage.allowedRoles`), or, in a change to a user
 * (`onUser`), the user's `role`.
 */
export function holdsRoleIds(
  key: string,
  onUser = false,
  catalogue: Catalogue = SHIPPED_CATALOGUE,
): boolean {
  return onUser ? key === 'role' : catalogue.spec(key)?.kind === 'roleList';
}

/** Categories in catalogue order (the order the editor shows them in). */
export const CATEGORIES: readonly string[] = SHIPPED_CATALOGUE.categories;

export function permissionsInCategory(category: string): readonly PermissionSpec[] {
  return SHIPPED_CATALOGUE.inCategory(category);
}

/** The documented defaults: what a role's permissions are until a key is set explicitly. */
export function defaultPermissions(): PermissionMap {
  return SHIPPED_CATALOGUE.defaults();
}

export type PermissionErrors = Record<string, string>;
export type ValidationResult =
  | { ok: true; permissions: PermissionMap }
  | { ok: false; errors: PermissionErrors };

export interface ValidationContext {
  /** Role ids that exist; when given, role lists may only name these. */
  roleIds?: readonly string[] | undefined;
  /** The keys and values to check against: the app's own catalogue; the shipped one by default. */
  catalogue?: Catalogue | undefined;
}

const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126})$/i;
const FREE_ITEM = /^[^\s,]{1,100}$/u;

/**
 * Checks a permissions object before it is sent: known keys get their values checked against
 * the catalogue (the app's, with the values its CometChat defines, when given); unknown keys pass
 * through as long as they have a permission-shaped value.
 */
export function validatePermissions(
  input: Readonly<Record<string, unknown>>,
  context: ValidationContext = {},
): ValidationResult {
  const errors: PermissionErrors = {};
  const permissions: PermissionMap = {};
  for (const [key, value] of Object.entries(input)) {
    const problem = problemWith(key, value, context);
    if (problem) errors[key] = problem;
    else if (isPermissionValue(value)) permissions[key] = value;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, permissions };
}

function problemWith(key: string, value: unknown, context: ValidationContext): string | undefined {
  const shape = isPermissionValue(value);
  if (!shape) return `${key} must be a string, a list of strings or null.`;
  const spec = (context.catalogue ?? SHIPPED_CATALOGUE).spec(key);
  if (!spec) return undefined;
  switch (spec.kind) {
    case 'action':
    case 'mode':
      return typeof value === 'string' && spec.values.includes(value)
        ? undefined
        : `${key} must be one of ${spec.values.join(', ')}.`;
    case 'fixedList':
      return listProblem(key, value, (item) =>
        spec.values.includes(item) ? undefined : `${item} is not one of ${spec.values.join(', ')}`,
      );
    case 'roleList':
      return listProblem(key, value, (item) => {
        if (!ROLE_ID.test(item)) return `${item} is not a role id`;
        return context.roleIds && !context.roleIds.includes(item)
          ? `${item} is not a role`
          : undefined;
      });
    case 'freeList':
      return listProblem(key, value, (item) => freeItemProblem(key, item));
  }
}

function freeItemProblem(key: string, item: string): string | undefined {
  if (key.endsWith('MimeTypes')) {
    return MIME_TYPE.test(item) ? undefined : `${item} is not a MIME type like image/png`;
  }
  return FREE_ITEM.test(item) ? undefined : `${item} must be 1-100 characters without spaces`;
}

function listProblem(
  key: string,
  value: PermissionValue,
  itemProblem: (item: string) => string | undefined,
): string | undefined {
  if (value === null) return undefined;
  if (!Array.isArray(value)) return `${key} must be a list (or null for no restriction).`;
  const problems = value.map(itemProblem).filter((p): p is string => p !== undefined);
  if (problems.length > 0) return `${key}: ${problems.join('; ')}.`;
  if (new Set(value).size !== value.length) return `${key} lists an item twice.`;
  return undefined;
}

function isPermissionValue(value: unknown): value is PermissionValue {
  return (
    value === null ||
    typeof value === 'string' ||
    (Array.isArray(value) && value.every((item) => typeof item === 'string'))
  );
}

/**
 * A permission value in words, the same everywhere it is shown: a list as its items, and no
 * list or an empty one as "no restriction" (CometChat applies no filter then); a key the map
 * does not hold as "not set".
 */
export function valueInWords(value: PermissionValue | undefined): string {
  if (value === undefined) return 'not set';
  if (value === null) return 'no restriction';
  if (Array.isArray(value)) return value.length === 0 ? 'no restriction' : value.join(', ');
  return value;
}

/**
 * Whether two permission values are the same, as the editor, the review and `compare` judge it:
 * lists compare as sets, and `null` (no restriction) equals `[]`.
 */
export function sameValue(a: PermissionValue | undefined, b: PermissionValue | undefined): boolean {
  const list = (v: PermissionValue | undefined) => (v === null || v === undefined ? [] : v);
  if (Array.isArray(a) || Array.isArray(b) || a === null || b === null) {
    if (typeof a === 'string' || typeof b === 'string') return false;
    const left = new Set(list(a));
    const right = new Set(list(b));
    return left.size === right.size && [...left].every((item) => right.has(item));
  }
  return a === b;
}
