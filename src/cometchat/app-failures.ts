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
    listRoles: (query) => client.listRoles(query).catch(label),
    listAllRoles: (options) => client.listAllRoles(options).catch(label),
    setRolePermissions: (role, permissions) =>
      client.setRolePermissions(role, permissions).catch(label),
    listPermissionDefinitions: (role) => client.listPermissionDefinitions(role).catch(label),
    createRole: (role) => client.createRole(role).catch(label),
    updateRole: (role, update) => client.updateRole(role, update).catch(label),
    deleteRole: (role) => client.deleteRole(role).catch(label),
    unsetRolePermission: (role, key) => client.unsetRolePermission(role, key).catch(label),
    getCall: (sessionId, options) => client.getCall(sessionId, options).catch(label),
    getCallMessageSession: (messageId) => client.getCallMessageSession(messageId).catch(label),
    listCalls: (query, options) => client.listCalls(query, options).catch(label),
    getUsage: (range) => client.getUsage(range).catch(label),
    getUser: (uid) => client.getUser(uid).catch(label),
    listUsers: (query, options) => client.listUsers(query, options).catch(label),
    countUsersWithRole: (role, options) => client.countUsersWithRole(role, options).catch(label),
    setUserRole: (uid, role) => client.setUserRole(uid, role).catch(label),
    deactivateUsers: (uids) => client.deactivateUsers(uids).catch(label),
    reactivateUsers: (uids) => client.reactivateUsers(uids).catch(label),
    listFriends: (uid, query) => client.listFriends(uid, query).catch(label),
    areFriends: (uid, other) => client.areFriends(uid, other).catch(label),
    listBlockedUsers: (uid, query) => client.listBlockedUsers(uid, query).catch(label),
    blocksBetween: (uid, other) => client.blocksBetween(uid, other).catch(label),
    listFlaggedMessages: (query) => client.listFlaggedMessages(query).catch(label),
    decideFlaggedMessage: (id, decision) => client.decideFlaggedMessage(id, decision).catch(label),
    listBlockedMessages: (query) => client.listBlockedMessages(query).catch(label),
    decideBlockedMessage: (id, decision) => client.decideBlockedMessage(id, decision).catch(label),
    listRules: () => client.listRules().catch(label),
    getRule: (id) => client.getRule(id).catch(label),
    updateRule: (rule) => client.updateRule(rule).catch(label),
    listRuleRevisions: (id) => client.listRuleRevisions(id).catch(label),
    listSessions: (uid) => client.listSessions(uid).catch(label),
    revokeSession: (uid, fingerprint) => client.revokeSession(uid, fingerprint).catch(label),
    revokeAllSessions: (uid) => client.revokeAllSessions(uid).catch(label),
    listMessages: (query) => client.listMessages(query).catch(label),
    getMessage: (id) => client.getMessage(id).catch(label),
    deleteMessage: (id, options) => client.deleteMessage(id, options).catch(label),
    listUserGroups: (uid) => client.listUserGroups(uid).catch(label),
    banGroupMember: (guid, uid) => client.banGroupMember(guid, uid).catch(label),
    unbanGroupMember: (guid, uid) => client.unbanGroupMember(guid, uid).catch(label),
    getGroup: (guid) => client.getGroup(guid).catch(label),
    listGroups: (query) => client.listGroups(query).catch(label),
    listGroupMembers: (guid, query) => client.listGroupMembers(guid, query).catch(label),
    listBannedMembers: (guid, query) => client.listBannedMembers(guid, query).catch(label),
    setMemberScope: (guid, uid, scope) => client.setMemberScope(guid, uid, scope).catch(label),
    kickGroupMember: (guid, uid) => client.kickGroupMember(guid, uid).catch(label),
    listScopePermissionDefinitions: (guid, scope) =>
      client.listScopePermissionDefinitions(guid, scope).catch(label),
    setScopePermissions: (guid, scope, permissions) =>
      client.setScopePermissions(guid, scope, permissions).catch(label),
    unsetScopePermission: (guid, scope, key) =>
      client.unsetScopePermission(guid, scope, key).catch(label),
  };
}
