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
    getCall: (sessionId, request) => client.getCall(sessionId, request).catch(label),
    listCalls: (query, request) => client.listCalls(query, request).catch(label),
  };
}
