import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { slackErrorCode } from './deliver.ts';

/**
 * Who may do what. Editing permissions is for the people in EDITORS (users, or members of
 * user groups), or for workspace admins and owners when EDITORS is not set. Viewing (role
 * list, call lookup, audit) is for everyone unless VIEWERS narrows it; editors may always view.
 *
 * Answers from Slack are cached briefly: an admin check per click would hit users.info's rate
 * limit during an incident. When Slack cannot answer, access is refused (fail closed).
 */
export interface Access {
  canEdit(userId: string, log: Logger): Promise<boolean>;
  canView(userId: string, log: Logger): Promise<boolean>;
}

export interface AccessOptions {
  client: WebClient;
  editors: readonly string[] | undefined;
  viewers: readonly string[] | undefined;
  /** How long an answer from Slack is reused (default one minute). */
  cacheMs?: number;
  now?: () => number;
}

export function createAccess(options: AccessOptions): Access {
  const cacheMs = options.cacheMs ?? 60_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { value: Promise<boolean | readonly string[]>; expires: number }>();

  // Concurrent checks for the same key share one request; failures are not cached.
  function cached<T extends boolean | readonly string[]>(
    key: string,
    load: () => Promise<T>,
  ): Promise<T> {
    const hit = cache.get(key);
    if (hit && hit.expires > now()) return hit.value as Promise<T>;
    const value = load();
    cache.set(key, { value, expires: now() + cacheMs });
    value.catch(() => cache.delete(key));
    return value;
  }

  const isAdmin = (userId: string) =>
    cached(`admin:${userId}`, async () => {
      const answer = await options.client.users.info({ user: userId });
      return Boolean(
        answer.user?.is_admin || answer.user?.is_owner || answer.user?.is_primary_owner,
      );
    });

  const groupMembers = (groupId: string) =>
    cached(`group:${groupId}`, async () => {
      const answer = await options.client.usergroups.users.list({ usergroup: groupId });
      return (answer.users ?? []) as readonly string[];
    });

  async function listed(list: readonly string[], userId: string): Promise<boolean> {
    if (list.includes(userId)) return true;
    for (const group of list.filter((id) => id.startsWith('S'))) {
      if ((await groupMembers(group)).includes(userId)) return true;
    }
    return false;
  }

  async function canEdit(userId: string, log: Logger): Promise<boolean> {
    try {
      return options.editors ? await listed(options.editors, userId) : await isAdmin(userId);
    } catch (error) {
      log.warn({ cause: slackErrorCode(error) }, 'access check failed; refusing');
      return false;
    }
  }

  return {
    canEdit,
    async canView(userId, log) {
      if (!options.viewers) return true;
      try {
        if (await listed(options.viewers, userId)) return true;
      } catch (error) {
        log.warn({ cause: slackErrorCode(error) }, 'viewer check failed; trying the editor rules');
      }
      return canEdit(userId, log);
    },
  };
}

export const REFUSALS = {
  view: 'This app is limited to the people listed in its VIEWERS setting; ask an admin of the app if you need access.',
  edit: "Only the people listed in the app's EDITORS setting may change permissions; ask one of them, or an admin of the app.",
  editAdmins:
    'Only workspace admins and owners may change permissions (the app has no EDITORS list); ask one of them.',
} as const;

/**
 * Global middleware: when VIEWERS is set, anyone else is refused before any listener runs,
 * whatever they invoke (a command, a button, a shortcut, a modal). The request is still
 * acknowledged, so Slack shows the refusal and not a timeout.
 */
export function requireViewer(
  access: Access,
  refuse: (body: unknown, sentence: string, log: Logger) => Promise<void>,
): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const { body, context, next } = args;
    const b = body as { user_id?: string; user?: { id?: string }; type?: string };
    const userId = b.user_id ?? b.user?.id;
    const log = (context.scope as { log?: Logger } | undefined)?.log;
    if (!userId || !log || (await access.canView(userId, log))) {
      await next();
      return;
    }
    log.warn({ user: userId }, 'request refused: not a viewer');
    const ack = (args as { ack?: (response?: unknown) => Promise<void> }).ack;
    if (b.type === 'view_submission') {
      await ack?.({
        response_action: 'update',
        view: {
          type: 'modal',
          title: { type: 'plain_text', text: 'Not allowed' },
          close: { type: 'plain_text', text: 'Close' },
          blocks: [{ type: 'section', text: { type: 'mrkdwn', text: REFUSALS.view } }],
        },
      });
      return;
    }
    await ack?.();
    await refuse(body, REFUSALS.view, log);
  };
}
