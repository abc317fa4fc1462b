import type { CometChatClient } from '../cometchat/client.ts';
import type { CometChatApp } from './apps.ts';

/**
 * How many users hold `role` in the app (CometChat's count, cached briefly per app by the role
 * cache), or undefined when CometChat cannot say: a count is shown beside a role or a change and
 * never holds one up. The client has logged why.
 */
export async function countHolders(
  app: Pick<CometChatApp, 'cometchat'>,
  role: string,
  options?: Parameters<CometChatClient['countUsersWithRole']>[1],
): Promise<number | undefined> {
  try {
    return await app.cometchat.countUsersWithRole(role, options);
  } catch {
    return undefined;
  }
}
