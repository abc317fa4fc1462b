import { describe, expect, it } from 'vitest';
import { withAppFailures } from '../../src/cometchat/app-failures.ts';
import type { CometChatClient } from '../../src/cometchat/client.ts';
import { CometChatError } from '../../src/cometchat/errors.ts';

const prod = { name: 'prod', settingPrefix: 'COMETCHAT_PROD_' };

function failingWith(error: unknown): CometChatClient {
  const fail = () => Promise.reject(error);
  return {
    listRoles: fail,
    listAllRoles: fail,
    setRolePermissions: fail,
    listPermissionDefinitions: fail,
    createRole: fail,
    updateRole: fail,
    deleteRole: fail,
    unsetRolePermission: fail,
    getCall: fail,
    getCallMessageSession: fail,
    listCalls: fail,
    getUsage: fail,
    getUser: fail,
    listUsers: fail,
    countUsersWithRole: fail,
    setUserRole: fail,
    deactivateUsers: fail,
    reactivateUsers: fail,
    listFriends: fail,
    areFriends: fail,
    listBlockedUsers: fail,
    blocksBetween: fail,
    listFlaggedMessages: fail,
    decideFlaggedMessage: fail,
    listBlockedMessages: fail,
    decideBlockedMessage: fail,
    listRules: fail,
    getRule: fail,
    updateRule: fail,
    listRuleRevisions: fail,
    listSessions: fail,
    revokeSession: fail,
    revokeAllSessions: fail,
    listMessages: fail,
    getMessage: fail,
    deleteMessage: fail,
    listUserGroups: fail,
    banGroupMember: fail,
    unbanGroupMember: fail,
    getGroup: fail,
    listGroups: fail,
    listGroupMembers: fail,
    listBannedMembers: fail,
    setMemberScope: fail,
    kickGroupMember: fail,
    listScopePermissionDefinitions: fail,
    setScopePermissions: fail,
    unsetScopePermission: fail,
  };
}

describe('withAppFailures', () => {
  it("says which app each method's CometChat failure belongs to", async () => {
    const error = new CometChatError({ kind: 'unavailable', ref: 'r1', operation: 'getCall' });
    const client = withAppFailures(failingWith(error), prod);
    for (const call of [
      () => client.listRoles(),
      () => client.listAllRoles(),
      () => client.setRolePermissions('default', { sendMessage: 'deny' }),
      () => client.getCall('v1.us.app.1'),
      () => client.listCalls({ page: 1, perPage: 10 }),
      () => client.getUsage({ fromDate: 1_700_000_000, toDate: 1_700_086_400 }),
      () => client.getUser('cometchat-uid-1'),
      () => client.listUsers({ page: 1, perPage: 10 }),
      () => client.countUsersWithRole('admin'),
      () => client.setUserRole('cometchat-uid-1', 'admin'),
      () => client.deactivateUsers(['cometchat-uid-1']),
      () => client.reactivateUsers(['cometchat-uid-1']),
      () => client.listFriends('cometchat-uid-1'),
      () => client.areFriends('cometchat-uid-1', 'cometchat-uid-2'),
      () => client.listBlockedUsers('cometchat-uid-1'),
      () => client.blocksBetween('cometchat-uid-1', 'cometchat-uid-2'),
      () => client.listFlaggedMessages(),
      () => client.decideFlaggedMessage('9001', 'approved'),
      () => client.listBlockedMessages({ limit: 10 }),
      () => client.decideBlockedMessage('9101', 'rejected'),
      () => client.listRules(),
      () => client.getRule('profanity'),
      () =>
        client.updateRule({
          id: 'profanity',
          name: 'Profanity',
          enabled: true,
          actions: [],
          conditions: [],
          filters: [],
        }),
      () => client.listRuleRevisions('profanity'),
      () => client.listSessions('cometchat-uid-1'),
      () => client.revokeSession('cometchat-uid-1', '0a1b2c3d'),
      () => client.revokeAllSessions('cometchat-uid-1'),
      () => client.listMessages({ sender: 'cometchat-uid-1', limit: 10 }),
      () => client.getMessage('60001'),
      () => client.deleteMessage('60001', { permanent: false }),
      () => client.listUserGroups('cometchat-uid-1'),
      () => client.banGroupMember('support-lobby', 'cometchat-uid-1'),
      () => client.unbanGroupMember('support-lobby', 'cometchat-uid-1'),
      () => client.getGroup('hiking'),
      () => client.listGroups({ page: 1, perPage: 10 }),
      () => client.listGroupMembers('hiking', { page: 1, perPage: 10 }),
      () => client.listBannedMembers('hiking', { page: 1, perPage: 10 }),
      () => client.setMemberScope('hiking', 'ana_souza', 'moderator'),
      () => client.kickGroupMember('hiking', 'ana_souza'),
      () => client.listScopePermissionDefinitions('hiking', 'participant'),
      () => client.setScopePermissions('hiking', 'participant', { sendMessage: 'allow' }),
      () => client.unsetScopePermission('hiking', 'participant', 'sendMessage'),
    ]) {
      await expect(call()).rejects.toMatchObject({ kind: 'unavailable', ref: 'r1', app: prod });
    }
  });

  it('passes other failures and answers through as they are', async () => {
    const bug = new TypeError('a bug');
    await expect(withAppFailures(failingWith(bug), prod).listRoles()).rejects.toBe(bug);
    const page = {
      roles: [],
      pagination: { total: 0, count: 0, per_page: 10, current_page: 1, total_pages: 1 },
    };
    const ok = { ...failingWith(bug), listRoles: async () => page } as CometChatClient;
    expect(await withAppFailures(ok, prod).listRoles()).toBe(page);
  });
});
