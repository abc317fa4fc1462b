import type { AccountOperations } from './account-model.ts';
import { type CallOperations, CallRequests } from './calls.ts';
import type { GroupOperations } from './group-model.ts';
import { GroupRequests } from './groups.ts';
import { MessageRequests } from './messages.ts';
import { ModerationRequests } from './moderation.ts';
import type { ModerationOperations } from './moderation-model.ts';
import { type RoleOperations, RoleRequests } from './roles.ts';
import { createSender, type SenderOptions } from './send.ts';
import { SessionRequests } from './sessions.ts';
import { type UsageOperations, UsageRequests } from './usage.ts';
import { type UserOperations, UserRequests } from './users.ts';

// The CometChat REST API through ky. Each operation is one ky call and the zod schema of its
// answer (roles.ts, users.ts, calls.ts, usage.ts, moderation.ts; a user's sessions, messages
// and groups in sessions.ts, messages.ts, groups.ts, which also holds a group's members, bans
// and scope permissions); the rules every request
// follows (its time budget, its retries, the waits a service asks for, the cap on an answer) are
// ky's options and hooks on each host's instance (ky-instance.ts); send.ts runs each request
// under the running request's reference and turns its failure into a CometChatError.

export type { SenderOptions as CometChatClientOptions } from './send.ts';

export interface CometChatClient
  extends RoleOperations,
    CallOperations,
    UsageOperations,
    UserOperations,
    ModerationOperations,
    AccountOperations,
    GroupOperations {}

export function createCometChatClient(options: SenderOptions): CometChatClient {
  const sender = createSender(options);
  return {
    ...new RoleRequests(sender),
    ...new CallRequests(sender),
    ...new UsageRequests(sender),
    ...new UserRequests(sender),
    ...new ModerationRequests(sender),
    ...new SessionRequests(sender),
    ...new MessageRequests(sender),
    ...new GroupRequests(sender),
  };
}
