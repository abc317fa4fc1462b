import { z } from 'zod';
import catalogueJson from '../../src/cometchat/permissions.json' with { type: 'json' };
import type { PermissionMap, PermissionValue } from './state.ts';

// The sandbox reads the shared catalogue itself instead of importing the client's helpers: it
// stands in for the service, and must not agree with the client merely because they share code.

const EntrySchema = z.discriminatedUnion('kind', [
  z.object({
    key: z.string(),
    kind: z.enum(['action', 'mode']),
    values: z.array(z.string()).min(1),
    default: z.string(),
  }),
  z.object({
    key: z.string(),
    kind: z.literal('fixedList'),
    values: z.array(z.string()).min(1),
    default: z.array(z.string()).nullable(),
  }),
  z.object({
    key: z.string(),
    kind: z.enum(['roleList', 'freeList']),
    default: z.array(z.string()).nullable(),
  }),
]);
export type CatalogueEntry = z.infer<typeof EntrySchema>;

/** An entry with the texts the definitions list shows, where the generic ones would not do. */
export type DescribedEntry = CatalogueEntry & { title?: string; description?: string };

const SHIPPED: readonly CatalogueEntry[] = z
  .object({ permissions: z.array(EntrySchema) })
  .parse(catalogueJson).permissions;

/**
 * Keys the stand-in knows and the shipped catalogue lacks: the live service knows keys the
 * catalogue does not name (live-api-notes.md, "Permissions"), and a client must meet one as a
 * definition, a default in the effective map and an action an update accepts, not only as a
 * value someone wrote. Should the catalogue come to list one, its entry wins.
 */
const STANDIN_ONLY: readonly DescribedEntry[] = [
  {
    key: 'removeReaction',
    kind: 'action',
    values: ['allow', 'deny'],
    default: 'allow',
    title: 'Allows/Denies removing reactions from messages',
    description: 'When denied, users with the role cannot remove reactions from messages.',
  },
];

const ENTRIES: readonly DescribedEntry[] = [
  ...SHIPPED,
  ...STANDIN_ONLY.filter((extra) => !SHIPPED.some((e) => e.key === extra.key)),
];

/** The keys the stand-in adds to the shipped catalogue. */
export const STANDIN_ONLY_PERMISSION_KEYS: readonly string[] = STANDIN_ONLY.map((e) => e.key);

const BY_KEY: ReadonlyMap<string, CatalogueEntry> = new Map(ENTRIES.map((e) => [e.key, e]));

/** Every key the stand-in knows, in catalogue order, its own keys last. */
export function catalogueEntries(): readonly DescribedEntry[] {
  return ENTRIES;
}

/** An action name, optionally followed by dotted qualifiers (`sendMessage.allowedMimeTypes`). */
const PERMISSION_NAME = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$/;

/** Whether a key is named like a permission: a role's or a group scope's. */
export function isPermissionName(key: string): boolean {
  return PERMISSION_NAME.test(key);
}

export function catalogueEntry(key: string): CatalogueEntry | undefined {
  return BY_KEY.get(key);
}

/**
 * Whether a written key is an action (allow/deny) rather than one of its qualifiers. Unknown
 * keys count when they look like one. `permissions` never does: the update's answer already
 * uses that name for the whole map.
 */
export function isActionKey(key: string, value: PermissionValue): boolean {
  if (key === 'permissions') return false;
  const entry = catalogueEntry(key);
  if (entry !== undefined) return entry.kind === 'action';
  return !key.includes('.') && (value === 'allow' || value === 'deny');
}

/** What a role's permissions are before anything is set explicitly. */
export function defaultPermissionMap(): PermissionMap {
  return Object.fromEntries(
    ENTRIES.map((e): [string, PermissionValue] => [
      e.key,
      Array.isArray(e.default) ? [...e.default] : e.default,
    ]),
  );
}

/** A key's default (a fresh copy), or undefined for a key the stand-in does not know. */
export function defaultValueOf(key: string): PermissionValue | undefined {
  const entry = catalogueEntry(key);
  if (entry === undefined) return undefined;
  return Array.isArray(entry.default) ? [...entry.default] : entry.default;
}

export type ValidationDetails = Record<string, string[]>;
export type PermissionCheck =
  | { ok: true; permissions: PermissionMap }
  | { ok: false; details: ValidationDetails };

/**
 * Checks the `permissions` member of an update. Known keys must hold a value the catalogue
 * allows; unknown keys are accepted (the live service knows keys the catalogue does not) as long
 * as they look like a permission: a name of the documented form and a string, a list of
 * strings or null. All problems are reported at once, keyed `permissions.<key>`.
 */
export function checkPermissionUpdate(
  input: Record<string, unknown>,
  roleIds: ReadonlySet<string>,
): PermissionCheck {
  const details: ValidationDetails = {};
  const accepted: [string, PermissionValue][] = [];
  for (const [key, value] of Object.entries(input)) {
    const checked = PERMISSION_NAME.test(key)
      ? checkValue(key, value, catalogueEntry(key), roleIds)
      : { problem: `"${key}" is not a permission name.` };
    if ('problem' in checked) details[`permissions.${key}`] = [checked.problem];
    else accepted.push([key, checked.value]);
  }
  if (Object.keys(details).length > 0) return { ok: false, details };
  return { ok: true, permissions: Object.fromEntries(accepted) };
}

type Checked = { value: PermissionValue } | { problem: string };

function checkValue(
  key: string,
  value: unknown,
  entry: CatalogueEntry | undefined,
  roleIds: ReadonlySet<string>,
): Checked {
  if (entry === undefined) {
    return value === null || typeof value === 'string' || isStringList(value)
      ? { value }
      : { problem: `The ${key} permission must be a string, a list of strings or null.` };
  }
  switch (entry.kind) {
    case 'action':
    case 'mode':
      return typeof value === 'string' && entry.values.includes(value)
        ? { value }
        : { problem: `The ${key} permission must be one of: ${entry.values.join(', ')}.` };
    case 'fixedList':
      return checkList(
        key,
        value,
        (item) => entry.values.includes(item),
        (rejected) =>
          `has values that are not allowed: ${quote(rejected)}. Allowed: ${entry.values.join(', ')}.`,
      );
    case 'roleList':
      return checkList(
        key,
        value,
        (item) => roleIds.has(item),
        (rejected) => `names roles that do not exist: ${quote(rejected)}.`,
      );
    case 'freeList':
      return checkList(
        key,
        value,
        (item) => item.trim() !== '',
        () => 'has empty values.',
      );
  }
}

/** For list keys `null` means no restriction, the same as `[]`; both are stored as sent. */
function checkList(
  key: string,
  value: unknown,
  accepts: (item: string) => boolean,
  explain: (rejected: string[]) => string,
): Checked {
  if (value === null) return { value };
  if (!isStringList(value)) {
    return { problem: `The ${key} permission must be null or a list of strings.` };
  }
  const rejected = value.filter((item) => !accepts(item));
  return rejected.length === 0
    ? { value }
    : { problem: `The ${key} permission ${explain(rejected)}` };
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function quote(items: readonly string[]): string {
  return items.map((item) => JSON.stringify(item)).join(', ');
}
