import type { CometChatClient } from './client.ts';
import { type FailedApp, isCometChatError } from './errors.ts';

/**
 * The client of one of several configured apps: its failures say which app they belong to, so
 * that the sentence a person reads names the app (and, for a refused key, that app's setting).
 */
export function withAppFailures<C extends CometChatClient>(client: C, app: FailedApp): C {
  const label = (error: unknown): never => {
    throw isCometChatError(error) ? error.forApp(app) : error;
  };
  return {
    ...client,
    listRoles: (query, request) => client.listRoles(query, request).catch(label),
    listAllRoles: (request) => client.listAllRoles(request).catch(label),
    setRolePermissions: (role, permissions, request) =>
      client.setRolePermissions(role, permissions, request).catch(label),
    listPermissionDefinitions: (role, request) =>
      client.listPermissionDefinitions(role, request).catch(label),
    createRole: (role, request) => client.createRole(role, request).catch(label),
    updateRole: (role, update, request) => client.updateRole(role, update, request).catch(label),
    deleteRole: (role, request) => client.deleteRole(role, request).catch(label),
    unsetRolePermission: (role, key, request) =>
      client.unsetRolePermission(role, key, request).catch(label),
    getCall: (sessionId, request) => client.getCall(sessionId, request).catch(label),
    getCallMessageSession: (messageId, request) =>
      client.getCallMessageSession(messageId, request).catch(label),
    listCalls: (query, request) => client.listCalls(query, request).catch(label),
    getUsage: (range, request) => client.getUsage(range, request).catch(label),
    getUser: (uid, request) => client.getUser(uid, request).catch(label),
    listUsers: (query, request) => client.listUsers(query, request).catch(label),
    countUsersWithRole: (role, request) => client.countUsersWithRole(role, request).catch(label),
    setUserRole: (uid, role, request) => client.setUserRole(uid, role, request).catch(label),
    deactivateUsers: (uids, request) => client.deactivateUsers(uids, request).catch(label),
    reactivateUsers: (uids, request) => client.reactivateUsers(uids, request).catch(label),
    listFriends: (uid, query, request) => client.listFriends(uid, query, request).catch(label),
    areFriends: (uid, other, request) => client.areFriends(uid, other, request).catch(label),
    listBlockedUsers: (uid, query, request) =>
      client.listBlockedUsers(uid, query, request).catch(label),
    blocksBetween: (uid, other, request) => client.blocksBetween(uid, other, request).catch(label),
  };
}
