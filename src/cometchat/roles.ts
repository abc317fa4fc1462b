import type { PermissionUpdate, Role, RolePage } from './model.ts';
import { toPermissionUpdate } from './model.ts';
import { segment } from './refusals.ts';
import {
  type PermissionDefinition,
  PermissionDefinitionListResponseSchema,
  type PermissionMap,
  PermissionUpdateResponseSchema,
  RoleDeletedResponseSchema,
  RoleListResponseSchema,
  RoleResponseSchema,
} from './schemas.ts';
import type { RequestOptions, Send, Sender } from './send.ts';

// Roles and their permissions, on the REST API's host: `/v3/roles`.

export interface RoleOperations {
  listRoles(
    query?: { page?: number; perPage?: number },
    options?: RequestOptions,
  ): Promise<RolePage>;
  /**
   * Every role, page by page (`perPage` default 100: one page holds the service's 25 at most).
   * `fresh` asks past any cache in front of the client (role-cache.ts): for a check that a change
   * is still as reviewed, which a list kept from the review itself could not make.
   */
  listAllRoles(
    options?: RequestOptions & { perPage?: number | undefined; fresh?: boolean | undefined },
  ): Promise<Role[]>;
  setRolePermissions(
    role: string,
    permissions: PermissionMap,
    options?: RequestOptions,
  ): Promise<PermissionUpdate>;
  /** The service's definitions of the permission keys (titles, values, defaults), every page. */
  listPermissionDefinitions(
    role: string,
    options?: RequestOptions,
  ): Promise<PermissionDefinition[]>;
  /** Creates a role; answers it as the service stored it (the service lower-cases the id). */
  createRole(role: NewRole, options?: RequestOptions): Promise<Role>;
  /** Renames or describes a role (an empty description unsets it); answers the role. */
  updateRole(role: string, update: RoleUpdate, options?: RequestOptions): Promise<Role>;
  /** Deletes a role (the service refuses `default`); answers whether the service says it did. */
  deleteRole(
    role: string,
    options?: RequestOptions,
  ): Promise<{ success: boolean; message: string }>;
  /** Unsets one key of a role (back to its default); answers the role's map after. */
  unsetRolePermission(
    role: string,
    key: string,
    options?: RequestOptions,
  ): Promise<PermissionUpdate>;
}

/** A role to create: `POST /v3/roles`. */
export interface NewRole {
  role: string;
  name: string;
  description?: string | undefined;
}

/** What `PUT /v3/roles/{role}` changes; a field left out is left as it is. */
export interface RoleUpdate {
  name?: string | undefined;
  /** An empty description unsets it. */
  description?: string | undefined;
}

/** The most pages of permission definitions read. */
const MAX_DEFINITION_PAGES = 20;

/** Arrow properties, not methods over `this`: a caller may well pass one around on its own. */
export class RoleRequests implements RoleOperations {
  readonly #send: Send;
  readonly #oneRef: Sender['oneRef'];

  constructor({ send, oneRef }: Sender) {
    this.#send = send;
    this.#oneRef = oneRef;
  }

  listRoles = async (query: { page?: number; perPage?: number } = {}, request?: RequestOptions) => {
    const searchParams = { page: query.page, perPage: query.perPage };
    const { data, meta } = await this.#send(
      'listRoles',
      ({ api }) => api.get('roles', { searchParams }).json(RoleListResponseSchema),
      request,
    );
    return { roles: data, pagination: meta.pagination };
  };

  /** The first page says how many there are; the rest are asked for together, under one ref. */
  listAllRoles = async ({
    perPage = 100,
    ...request
  }: RequestOptions & { perPage?: number | undefined } = {}) => {
    const shared = this.#oneRef(request);
    const first = await this.listRoles({ page: 1, perPage }, shared);
    const { total_pages, per_page } = first.pagination;
    const rest = await Promise.all(
      Array.from({ length: Math.max(0, total_pages - 1) }, (_, i) =>
        this.listRoles({ page: i + 2, perPage: per_page }, shared),
      ),
    );
    return [first, ...rest].flatMap((page) => page.roles);
  };

  setRolePermissions = async (
    role: string,
    permissions: PermissionMap,
    request?: RequestOptions,
  ) => {
    const { data } = await this.#send(
      'setRolePermissions',
      ({ api }) =>
        api
          .put(`roles/${segment(role, 'role')}/permissions`, { json: { permissions } })
          .json(PermissionUpdateResponseSchema),
      request,
    );
    return toPermissionUpdate(data);
  };

  /** Every page of the definitions, the first saying how many there are (like listAllRoles). */
  listPermissionDefinitions = async (role: string, request?: RequestOptions) => {
    const shared = this.#oneRef(request);
    const page = (page: number) =>
      this.#send(
        'listPermissionDefinitions',
        ({ api }) =>
          api
            .get(`roles/${segment(role, 'role')}/permissions`, {
              searchParams: { page, perPage: 100 },
            })
            .json(PermissionDefinitionListResponseSchema),
        shared,
      );
    const first = await page(1);
    const pages = Math.min(first.meta.pagination.total_pages, MAX_DEFINITION_PAGES);
    const rest = await Promise.all(
      Array.from({ length: Math.max(0, pages - 1) }, (_, i) => page(i + 2)),
    );
    return [first, ...rest].flatMap((body) => body.data);
  };

  createRole = async ({ role, name, description }: NewRole, request?: RequestOptions) => {
    const json = { role, name, ...(description ? { description } : {}) };
    const { data } = await this.#send(
      'createRole',
      ({ api }) => api.post('roles', { json }).json(RoleResponseSchema),
      request,
    );
    return data;
  };

  updateRole = async (role: string, update: RoleUpdate, request?: RequestOptions) => {
    const json: Record<string, unknown> = {};
    if (update.name !== undefined) json.name = update.name;
    if (update.description === '') json.unset = ['description'];
    else if (update.description !== undefined) json.description = update.description;
    const { data } = await this.#send(
      'updateRole',
      ({ api }) => api.put(`roles/${segment(role, 'role')}`, { json }).json(RoleResponseSchema),
      request,
    );
    return data;
  };

  deleteRole = async (role: string, request?: RequestOptions) => {
    const { data } = await this.#send(
      'deleteRole',
      ({ api }) => api.delete(`roles/${segment(role, 'role')}`).json(RoleDeletedResponseSchema),
      request,
    );
    return data;
  };

  unsetRolePermission = async (role: string, key: string, request?: RequestOptions) => {
    const { data } = await this.#send(
      'unsetRolePermission',
      ({ api }) =>
        api
          .delete(`roles/${segment(role, 'role')}/permissions/${segment(key, 'permission')}`)
          .json(PermissionUpdateResponseSchema),
      request,
    );
    return toPermissionUpdate(data);
  };
}
