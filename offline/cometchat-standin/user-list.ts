import { errorResponse } from './errors.ts';
import { pageOf, readPaging } from './paging.ts';
import { ok, type SandboxResponse } from './response.ts';
import type { SandboxState, User } from './state.ts';

// GET /v3/users: the users that match the documented filters, in uid order, a page at a time.
// Deactivated users are left out unless asked for, and tags only come with `withTags=true`,
// as on the live service (live-api-notes.md, "Users").

const SEARCH_FIELDS = ['uid', 'name'] as const;
type SearchField = (typeof SEARCH_FIELDS)[number];
const STATUSES = new Set(['available', 'offline']);

type Filter = (user: User) => boolean;

/** Whether the uid or the name (those in `fields`) starts with `key`, whatever the case. */
export function matchesSearch(
  user: User,
  key: string,
  fields: readonly SearchField[] = SEARCH_FIELDS,
): boolean {
  const wanted = key.toLowerCase();
  return fields.some((field) => user[field].toLowerCase().startsWith(wanted));
}

/** Code-unit order of uids: `cometchat-uid-10` comes before `cometchat-uid-2`. */
export function byUid(a: User, b: User): number {
  return a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0;
}

/** A user as a list serves it: its tags only when they were asked for. */
export function listed(user: User, withTags = false): Omit<User, 'tags'> {
  if (withTags || user.tags === undefined) return user;
  const { tags, ...rest } = user;
  return rest;
}

function commaList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** A `true`/`false` parameter: its value, false when absent; a problem goes into `details`. */
function flag(
  query: Record<string, string>,
  key: string,
  details: Record<string, string[]>,
): boolean {
  const value = query[key];
  if (value === undefined) return false;
  if (value !== 'true' && value !== 'false') details[key] = [`The ${key} must be true or false.`];
  return value === 'true';
}

function searchFilter(query: Record<string, string>, details: Record<string, string[]>) {
  const fields = query.searchIn === undefined ? [...SEARCH_FIELDS] : commaList(query.searchIn);
  const unknown = fields.filter((field) => !(SEARCH_FIELDS as readonly string[]).includes(field));
  if (unknown.length > 0 || fields.length === 0) {
    details.searchIn = ['The searchIn must list uid, name or both.'];
  }
  const key = query.searchKey;
  if (key === undefined || key === '') return undefined;
  const known = fields.filter((field): field is SearchField => field === 'uid' || field === 'name');
  return (user: User) => matchesSearch(user, key, known);
}

/** Each query parameter as a filter, or the problems with them (for a 400 with details). */
function filtersOf(query: Record<string, string>, details: Record<string, string[]>): Filter[] {
  const filters: Filter[] = [];
  const search = searchFilter(query, details);
  if (search) filters.push(search);
  if (query.role !== undefined) filters.push((user) => user.role === query.role);
  if (query.roles !== undefined) {
    const roles = new Set(commaList(query.roles));
    filters.push((user) => roles.has(user.role));
  }
  if (query.status !== undefined) {
    const status = query.status;
    if (!STATUSES.has(status)) details.status = ['The status must be available or offline.'];
    filters.push((user) => user.status === status);
  }
  if (query.tags !== undefined) {
    const tags = commaList(query.tags);
    filters.push((user) => tags.some((tag) => user.tags?.includes(tag)));
  }
  const only = flag(query, 'onlyDeactivated', details);
  const withDeactivated = flag(query, 'withDeactivated', details);
  if (only) filters.push((user) => user.deactivatedAt !== undefined);
  else if (!withDeactivated) filters.push((user) => user.deactivatedAt === undefined);
  return filters;
}

export function listUsers(state: SandboxState, query: Record<string, string>): SandboxResponse {
  const details: Record<string, string[]> = {};
  const filters = filtersOf(query, details);
  const withTags = flag(query, 'withTags', details);
  const paging = readPaging(query, details);
  if (paging === undefined || Object.keys(details).length > 0) {
    return errorResponse('ERR_BAD_REQUEST', { details });
  }
  const matching = [...state.users.values()]
    .filter((user) => filters.every((keep) => keep(user)))
    .sort(byUid)
    .map((user) => listed(user, withTags));
  return ok(pageOf(matching, paging));
}
