import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import {
  type EditAction,
  editRefused,
  type RefusalReason,
  viewRefused,
} from '../replies/refusals.ts';
import { currentRequestIfAny } from '../request-context.ts';
import { messageModal } from '../slack/blocks.ts';
import { ackOf, factsOf } from '../slack/body-facts.ts';
import { slackErrorCode } from '../slack/deliver.ts';
import { errorField } from '../slack/slack-errors.ts';
import { createTtlCache } from '../ttl-cache.ts';

/**
 * Who may do what. Editing permissions is for the people in EDITORS (users, or members of
 * user groups), or for workspace admins and owners when EDITORS is not set. Viewing (role
 * list, call lookup, audit) is for everyone unless VIEWERS narrows it; editors may always view.
 *
 * A check asks Slack everything it needs at once (each user group, the admin flag) and waits
 * at most `budgetMs` in all: the viewer check runs before a command is acknowledged and the
 * editor check before `views.open`, and Slack allows three seconds for both. When Slack does
 * not answer in time, or answers with an error, access is refused (fail closed), with a
 * sentence that says so rather than one that says the user is not listed.
 *
 * Answers from Slack are cached briefly: an admin check per click would hit users.info's rate
 * limit during an incident. A request that outlives its check still fills the cache, so trying
 * again a moment later usually succeeds.
 */
/**
 * How long one check may wait for Slack at most: the time left of the request's own deadline
 * (see request-context.ts), when that is shorter than the access budget.
 */
export interface CheckLimit {
  withinMs?: number | undefined;
  /** What the edit check is for: the refusal says so (changing, by default, or approving). */
  action?: EditAction | undefined;
}

export interface Access {
  /** The sentence that refuses `userId` the editor, or undefined when they may edit. */
  editRefusal(userId: string, log: Logger, limit?: CheckLimit): Promise<string | undefined>;
  /** The sentence that refuses `userId` the app, or undefined when they may use it. */
  viewRefusal(userId: string, log: Logger, limit?: CheckLimit): Promise<string | undefined>;
  /**
   * The sentence that refuses `userId` moderation (deciding on flagged and blocked messages,
   * reading their text), or undefined when they may: MODERATORS, else the editors.
   */
  moderatorRefusal(userId: string, log: Logger, limit?: CheckLimit): Promise<string | undefined>;
  canEdit(userId: string, log: Logger): Promise<boolean>;
  canView(userId: string, log: Logger): Promise<boolean>;
  /** Whether VIEWERS narrows who may use the app (unset: everyone in the workspace may). */
  limitsViewers: boolean;
}

/** Timers, injected so that tests can move time themselves. */
export interface AccessTimers {
  /** Runs `run` in `ms`; answers what cancels it. */
  setTimeout(run: () => void, ms: number): () => void;
}

export interface AccessOptions {
  client: WebClient;
  /** Users and user groups who may edit; undefined: workspace admins and owners may. */
  editors: readonly string[] | undefined;
  /** Users and user groups who may use the app (editors too); undefined: everyone. */
  viewers: readonly string[] | undefined;
  /**
   * How long one check may wait for Slack in all, its requests running side by side (default
   * 1.5 s: half of the three seconds Slack gives a command's ack and a trigger_id, the other
   * half left for the network, Bolt and `views.open`).
   */
  budgetMs?: number;
  /**
   * The setting `editors` comes from, named to someone it refuses (default `EDITORS`; an app
   * with editors of its own names `COMETCHAT_<NAME>_EDITORS`).
   */
  editorsSetting?: string;
  /**
   * Users and user groups who may moderate (MODERATORS, or the app's own); undefined: the
   * editors do (the edit check, its sentence naming `editorsSetting`).
   */
  moderators?: readonly string[] | undefined;
  /** The setting `moderators` comes from (default `MODERATORS`). */
  moderatorsSetting?: string | undefined;
  /** How long an answer from Slack is reused (default one minute). */
  cacheMs?: number;
  /** How many users' admin flags, and how many groups' members, are kept (default 1000 each). */
  cacheSize?: number;
  now?: () => number;
  timers?: AccessTimers;
}

export const DEFAULT_ACCESS_BUDGET_MS = 1_500;

type Verdict = { allowed: true } | { allowed: false; reason: RefusalReason; causes: string[] };

/** One question to Slack: does it let the user in? */
type Probe = () => Promise<boolean>;

const globalTimers: AccessTimers = {
  setTimeout: (run, ms) => {
    const timer = setTimeout(run, ms);
    return () => clearTimeout(timer);
  },
};

/** A request the Web API client gave up on (its own timeout) is Slack not answering in time. */
function timedOut(error: unknown): boolean {
  const original = errorField(error, 'original');
  return original instanceof Error && original.name === 'TimeoutError';
}

/**
 * Runs every probe at once: allowed as soon as one says yes; otherwise, once all have answered,
 * refused as not listed, or for the error one of them met; refused for lack of time when the
 * budget runs out first.
 */
function anyOf(probes: readonly Probe[], budgetMs: number, timers: AccessTimers): Promise<Verdict> {
  if (probes.length === 0)
    return Promise.resolve({ allowed: false, reason: 'not-listed', causes: [] });
  return new Promise((resolve) => {
    let pending = probes.length;
    let slow = false;
    const causes: string[] = [];
    const cancel = timers.setTimeout(
      () => resolve({ allowed: false, reason: 'timeout', causes }),
      budgetMs,
    );
    const settle = (verdict: Verdict) => {
      cancel();
      resolve(verdict);
    };
    const answered = () => {
      pending -= 1;
      if (pending > 0) return;
      if (slow) settle({ allowed: false, reason: 'timeout', causes });
      else
        settle({
          allowed: false,
          reason: causes.length > 0 ? 'slack-error' : 'not-listed',
          causes,
        });
    };
    for (const probe of probes) {
      probe().then(
        (yes) => (yes ? settle({ allowed: true }) : answered()),
        (error: unknown) => {
          if (timedOut(error)) slow = true;
          causes.push(slackErrorCode(error));
          answered();
        },
      );
    }
  });
}

export function createAccess(options: AccessOptions): Access {
  const editorsSetting = options.editorsSetting ?? 'EDITORS';
  const probes = createProbes(options);
  const decide = createDecider(options);

  async function editRefusal(
    userId: string,
    log: Logger,
    limit: CheckLimit = {},
  ): Promise<string | undefined> {
    const verdict = await decide('edit', probes.edit(userId), log, limit);
    if (verdict.allowed) return undefined;
    const setting = options.editors !== undefined ? editorsSetting : undefined;
    return editRefused(verdict.reason, setting, limit.action);
  }

  async function viewRefusal(
    userId: string,
    log: Logger,
    limit: CheckLimit = {},
  ): Promise<string | undefined> {
    if (!options.viewers) return undefined;
    const verdict = await decide('view', probes.view(options.viewers, userId), log, limit);
    return verdict.allowed ? undefined : viewRefused(verdict.reason);
  }

  async function moderatorRefusal(
    userId: string,
    log: Logger,
    limit: CheckLimit = {},
  ): Promise<string | undefined> {
    const { moderators } = options;
    const action = limit.action ?? 'moderate';
    if (!moderators) return editRefusal(userId, log, { ...limit, action });
    const verdict = await decide('moderate', probes.listed(moderators, userId), log, limit);
    if (verdict.allowed) return undefined;
    return editRefused(verdict.reason, options.moderatorsSetting ?? 'MODERATORS', action);
  }

  return {
    editRefusal,
    viewRefusal,
    moderatorRefusal,
    canEdit: async (userId, log) => (await editRefusal(userId, log)) === undefined,
    canView: async (userId, log) => (await viewRefusal(userId, log)) === undefined,
    limitsViewers: options.viewers !== undefined,
  };
}

/** The questions each check asks Slack: `listed` when the settings answer without Slack. */
interface Probes {
  edit(userId: string): Probe[] | 'listed';
  view(viewers: readonly string[], userId: string): Probe[] | 'listed';
  /** Whether `userId` is in `list` (a user, or a member of one of its groups). */
  listed(list: readonly string[], userId: string): Probe[] | 'listed';
}

/** Questions to Slack about a user, through caches of its answers. */
function createProbes(options: AccessOptions): Probes {
  const cacheSettings = {
    max: options.cacheSize ?? 1_000,
    ttlMs: options.cacheMs ?? 60_000,
    now: options.now,
  };
  const admins = createTtlCache<boolean>(cacheSettings);
  const groups = createTtlCache<readonly string[]>(cacheSettings);

  const isAdmin = (userId: string) =>
    admins.get(userId, async () => {
      const answer = await options.client.users.info({ user: userId });
      return Boolean(
        answer.user?.is_admin || answer.user?.is_owner || answer.user?.is_primary_owner,
      );
    });

  const inGroup = async (groupId: string, userId: string) => {
    const members = await groups.get(groupId, async () => {
      const answer = await options.client.usergroups.users.list({ usergroup: groupId });
      return answer.users ?? [];
    });
    return members.includes(userId);
  };

  /** The questions that decide whether `userId` is in `list`; none when it names them. */
  const listProbes = (list: readonly string[], userId: string): Probe[] | 'listed' =>
    list.includes(userId)
      ? 'listed'
      : list.filter((id) => id.startsWith('S')).map((group) => () => inGroup(group, userId));

  const edit = (userId: string): Probe[] | 'listed' =>
    options.editors ? listProbes(options.editors, userId) : [() => isAdmin(userId)];

  // Viewers and editors are asked about together: one budget for the whole check.
  const view = (viewers: readonly string[], userId: string): Probe[] | 'listed' => {
    const asViewer = listProbes(viewers, userId);
    const asEditor = edit(userId);
    return asViewer === 'listed' || asEditor === 'listed' ? 'listed' : [...asViewer, ...asEditor];
  };

  return { edit, view, listed: listProbes };
}

type Decide = (
  check: 'edit' | 'view' | 'moderate',
  probes: Probe[] | 'listed',
  log: Logger,
  limit: CheckLimit,
) => Promise<Verdict>;

/** Asks the probes within the budget (or the request's shorter deadline); logs a refusal Slack caused. */
function createDecider(options: AccessOptions): Decide {
  const budgetMs = options.budgetMs ?? DEFAULT_ACCESS_BUDGET_MS;
  const timers = options.timers ?? globalTimers;
  return async (check, probes, log, limit) => {
    if (probes === 'listed') return { allowed: true };
    const withinMs = Math.max(0, Math.min(budgetMs, limit.withinMs ?? budgetMs));
    const verdict = await anyOf(probes, withinMs, timers);
    if (!verdict.allowed && verdict.reason === 'timeout') {
      log.warn(
        { check, budgetMs, causes: verdict.causes },
        'access check ran out of time; refusing',
      );
    } else if (!verdict.allowed && verdict.reason === 'slack-error') {
      log.warn({ check, causes: verdict.causes }, 'access check failed; refusing');
    }
    return verdict;
  };
}

/**
 * The sentence refusing the editor, naming the setting that lists editors (an app with editors of
 * its own has its own setting), or the admins when there is no list.
 */

/**
 * Global middleware: when VIEWERS is set, anyone else is refused before any listener runs,
 * whatever they invoke (a command, a button, a shortcut, a modal). The request is still
 * acknowledged, so Slack shows the refusal and not a timeout.
 */
export function requireViewer(
  access: Pick<Access, 'viewRefusal'>,
  refuse: (body: AnyMiddlewareArgs['body'], sentence: string, log: Logger) => Promise<void>,
): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const { body, next } = args;
    const { userId, kind } = factsOf(body);
    const log = currentRequestIfAny()?.log;
    const refusal = userId && log ? await access.viewRefusal(userId, log) : undefined;
    if (refusal === undefined || !log) {
      await next();
      return;
    }
    log.warn({ user: userId }, 'request refused: not a viewer');
    const ack = ackOf(args);
    if (kind === 'view_submission') {
      await ack?.({
        response_action: 'update',
        view: messageModal('Not allowed', refusal),
      });
      return;
    }
    await ack?.();
    await refuse(body, refusal, log);
  };
}
