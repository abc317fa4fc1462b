import { errorResponse } from './errors.ts';
import { pageOf } from './paging.ts';
import {
  type CatalogueEntry,
  catalogueEntries,
  type DescribedEntry,
} from './permission-catalogue.ts';
import { ok, type SandboxResponse } from './response.ts';
import { readRolePaging } from './roles.ts';
import type { PermissionValue, SandboxState } from './state.ts';

// GET /v3/roles/{role}/permissions: what each permission key IS (live-api-notes.md, "Role
// management beyond the reference"), not what the role holds. The live titles are generic
// ("Allows/Denies sending messages"); the stand-in makes one of that kind from each key, so it
// needs no second list of texts to keep in step with the catalogue.

export interface PermissionDefinition {
  id: string;
  type: 'role';
  title: string;
  description: string;
  dataType: 'string' | 'stringArray';
  availableValues: string[];
  defaultValue: PermissionValue;
  createdAt: number;
  updatedAt: number;
}

/** The stand-in's definitions never change, so they carry one fixed date (2023-07-01). */
const DEFINED_AT = 1_688_169_600;

/** Verbs whose `-ing` form the rule in `gerund` gets wrong. */
const GERUNDS: Readonly<Record<string, string>> = { get: 'getting', set: 'setting' };

/** `getUserDetails` -> ['get', 'user', 'details']. */
function words(camel: string): string[] {
  return camel.split(/(?=[A-Z])/).map((word) => word.toLowerCase());
}

function gerund(verb: string): string {
  const known = GERUNDS[verb];
  if (known !== undefined) return known;
  return verb.endsWith('e') && !verb.endsWith('ee') ? `${verb.slice(0, -1)}ing` : `${verb}ing`;
}

/**
 * What an action does, two ways: `sendMessage` -> 'sending messages' and 'send messages'. The
 * catalogue's one past participle (`unblockedUser`) is read as its verb.
 */
function actionPhrases(action: string): { doing: string; base: string } {
  const [first = action, ...rest] = words(action);
  const verb = first.endsWith('ed') ? first.slice(0, -2) : first;
  const last = rest.at(-1);
  const object =
    last === undefined || last.endsWith('s') ? rest : [...rest.slice(0, -1), `${last}s`];
  const tail = object.length === 0 ? '' : ` ${object.join(' ')}`;
  return { doing: `${gerund(verb)}${tail}`, base: `${verb}${tail}` };
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const NO_RESTRICTION = 'null or an empty list means no restriction';

/** A generic title and description from the key and its kind. */
function texts(entry: CatalogueEntry): { title: string; description: string } {
  const [action = entry.key, ...qualifiers] = entry.key.split('.');
  const { doing, base } = actionPhrases(action);
  const qualifier = words(qualifiers.join(''));
  switch (entry.kind) {
    case 'action':
      return {
        title: `Allows/Denies ${doing}`,
        description: `When denied, users with the role cannot ${base}.`,
      };
    case 'mode':
      return {
        title: `Mode of ${doing}: ${entry.values.join(' or ')}`,
        description: `Whether ${doing} reaches every user (all) or only the user's friends (friends).`,
      };
    case 'fixedList':
      return {
        title: `${capitalised(qualifier.join(' '))} for ${doing}`,
        description: `Limits ${doing} to the listed values (${entry.values.join(', ')}); ${NO_RESTRICTION}.`,
      };
    case 'roleList':
    case 'freeList':
      return {
        title: `${capitalised(qualifier.join(' '))} for ${doing}`,
        description: `Limits ${doing} to the listed ${entry.kind === 'roleList' ? 'roles' : 'values'}; ${NO_RESTRICTION}.`,
      };
  }
}

function definitionOf(entry: DescribedEntry): PermissionDefinition {
  const generic = texts(entry);
  // Role and free lists take any role id or string: nothing to list.
  const listed = 'values' in entry ? entry.values : [];
  return {
    id: entry.key,
    type: 'role',
    title: entry.title ?? generic.title,
    description: entry.description ?? generic.description,
    dataType: entry.kind === 'action' || entry.kind === 'mode' ? 'string' : 'stringArray',
    availableValues: [...listed],
    defaultValue: Array.isArray(entry.default) ? [...entry.default] : entry.default,
    createdAt: DEFINED_AT,
    updatedAt: DEFINED_AT,
  };
}

/** Every definition, in catalogue order, the stand-in's own keys last; fresh objects each time. */
export function permissionDefinitions(): PermissionDefinition[] {
  return catalogueEntries().map(definitionOf);
}

/** The definitions are the same for every role; the role must exist all the same. */
export function listPermissionDefinitions(
  state: SandboxState,
  roleId: string | undefined,
  query: Record<string, string>,
): SandboxResponse {
  if (!state.roles.some((role) => role.role === roleId)) return errorResponse('ERR_ROLE_NOT_FOUND');
  const paging = readRolePaging(query);
  if (!paging.ok) return paging.response;
  return ok(pageOf(permissionDefinitions(), paging.paging));
}
