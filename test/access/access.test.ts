import type { WebClient } from '@slack/web-api';
import { type Logger, pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type AccessOptions,
  createAccess,
  DEFAULT_ACCESS_BUDGET_MS,
  requireViewer,
} from '../../src/access/access.ts';
import { createLogger } from '../../src/log.ts';
import { REFUSALS } from '../../src/replies/refusals.ts';
import { runInRequest } from '../../src/request-context.ts';
import { LogCapture } from '../log-capture.ts';

// Time is faked throughout: Slack's answers arrive on fake timers, and `Date.now` (the cache's
// clock) moves with them, so durations are exact and nothing waits for real.

type Answer<T> = { after: number; value?: T; error?: Error };

/** A platform error as @slack/web-api throws it (`{ ok: false, error }` from Slack). */
const platformError = (error: string) =>
  Object.assign(new Error(`An API error occurred: ${error}`), {
    code: 'slack_webapi_platform_error',
    data: { ok: false, error },
  });

/** What @slack/web-api throws when its own `timeout` cuts a request short. */
const clientTimeout = () =>
  Object.assign(new Error('A request error occurred: The operation was aborted due to timeout'), {
    code: 'slack_webapi_request_error',
    original: new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
  });

/**
 * A Web API client that answers `users.info` and `usergroups.users.list` as the test says, after
 * the delay it says, and records when each request was made.
 */
function fakeSlack() {
  const groups = new Map<string, Answer<string[]>>();
  const admins = new Map<string, Answer<boolean>>();
  const requests: { method: string; id: string; at: number }[] = [];
  const answer = <T, R>(spec: Answer<T> | undefined, wrap: (value: T) => R): Promise<R> =>
    new Promise((resolve, reject) => {
      if (spec === undefined) return; // never answers
      setTimeout(() => {
        if (spec.error) reject(spec.error);
        else resolve(wrap(spec.value as T));
      }, spec.after);
    });
  const client = {
    users: {
      info: ({ user }: { user: string }) => {
        requests.push({ method: 'users.info', id: user, at: Date.now() });
        return answer(admins.get(user) ?? { after: 0, value: false }, (isAdmin) => ({
          ok: true,
          user: { id: user, is_admin: isAdmin },
        }));
      },
    },
    usergroups: {
      users: {
        list: ({ usergroup }: { usergroup: string }) => {
          requests.push({ method: 'usergroups.users.list', id: usergroup, at: Date.now() });
          return answer(groups.get(usergroup), (users) => ({ ok: true, users }));
        },
      },
    },
  };
  return {
    // Only the two methods access.ts calls exist; a call to any other would fail the test.
    client: client as unknown as WebClient,
    requests,
    group: (id: string, answer: Answer<string[]>) => groups.set(id, answer),
    admin: (id: string, answer: Answer<boolean>) => admins.set(id, answer),
    count: (method: string) => requests.filter((r) => r.method === method).length,
  };
}

/** Tracks a promise so a test can ask whether it has settled yet, and with what. */
function track<T>(promise: Promise<T>) {
  const state: { settled: boolean; value?: T } = { settled: false };
  void promise.then((value) => {
    state.settled = true;
    state.value = value;
  });
  return state;
}

describe('createAccess', () => {
  let logs: LogCapture;
  let log: Logger;
  beforeEach(() => {
    vi.useFakeTimers();
    logs = new LogCapture();
    log = createLogger({ level: 'debug', destination: logs });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const access = (
    slack: ReturnType<typeof fakeSlack>,
    options: Partial<Omit<AccessOptions, 'client'>> = {},
  ) =>
    createAccess({
      client: slack.client,
      editors: undefined,
      viewers: undefined,
      now: () => Date.now(),
      ...options,
    });

  describe('asks Slack about every group at once, within one budget', () => {
    it('decides in one group’s time, not in three', async () => {
      const slack = fakeSlack();
      slack.group('S1', { after: 1_200, value: ['U0OTHER'] });
      slack.group('S2', { after: 1_200, value: [] });
      slack.group('S3', { after: 1_200, value: ['U0GROUPIE'] });
      const check = track(
        access(slack, { editors: ['S1', 'S2', 'S3'] }).editRefusal('U0GROUPIE', log),
      );
      await vi.advanceTimersByTimeAsync(1_199);
      expect(check.settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(check).toEqual({ settled: true, value: undefined });
      const started = slack.requests.map((r) => r.at);
      expect(started).toHaveLength(3);
      expect(new Set(started).size).toBe(1);
    });

    it('says yes as soon as one group lists the user, without waiting for the others', async () => {
      const slack = fakeSlack();
      slack.group('S1', { after: 100, value: ['U0GROUPIE'] });
      // S2 never answers.
      const check = track(access(slack, { editors: ['S1', 'S2'] }).editRefusal('U0GROUPIE', log));
      await vi.advanceTimersByTimeAsync(100);
      expect(check).toEqual({ settled: true, value: undefined });
    });

    it('says "not listed" once every group has answered without the user', async () => {
      const slack = fakeSlack();
      slack.group('S1', { after: 300, value: ['U0OTHER'] });
      slack.group('S2', { after: 1_200, value: [] });
      const check = track(access(slack, { editors: ['S1', 'S2'] }).editRefusal('U0NOBODY', log));
      await vi.advanceTimersByTimeAsync(1_200);
      expect(check).toEqual({ settled: true, value: REFUSALS.edit });
    });

    it('needs no request for a user listed by id', async () => {
      const slack = fakeSlack();
      const a = access(slack, { editors: ['U0EDITOR', 'S1'], viewers: ['U0VIEWER'] });
      expect(await a.editRefusal('U0EDITOR', log)).toBeUndefined();
      expect(await a.viewRefusal('U0VIEWER', log)).toBeUndefined();
      expect(await a.viewRefusal('U0EDITOR', log)).toBeUndefined();
      expect(slack.requests).toEqual([]);
    });
  });

  describe('when the budget runs out', () => {
    it('refuses at the budget with the sentence that Slack did not answer in time', async () => {
      const slack = fakeSlack();
      slack.group('S1', { after: 2_000, value: ['U0GROUPIE'] });
      slack.group('S2', { after: 100, value: [] });
      const check = track(access(slack, { editors: ['S1', 'S2'] }).editRefusal('U0GROUPIE', log));
      await vi.advanceTimersByTimeAsync(DEFAULT_ACCESS_BUDGET_MS - 1);
      expect(check.settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(check).toEqual({ settled: true, value: REFUSALS.editTimeout });
      expect(REFUSALS.editTimeout).toMatch(/did not answer in time.*try again in a moment/);
      const warning = logs
        .records()
        .find((r) => r.message === 'access check ran out of time; refusing');
      expect(warning?.cometchat_ops).toMatchObject({
        check: 'edit',
        budgetMs: DEFAULT_ACCESS_BUDGET_MS,
      });
    });

    it('uses the budget it is given, for the admin check too', async () => {
      const slack = fakeSlack();
      slack.admin('U0ADMIN', { after: 800, value: true });
      const check = track(access(slack, { budgetMs: 500 }).editRefusal('U0ADMIN', log));
      await vi.advanceTimersByTimeAsync(500);
      expect(check).toEqual({ settled: true, value: REFUSALS.editTimeout });
    });

    it('counts a request the Web API client timed out as Slack not answering in time', async () => {
      const slack = fakeSlack();
      slack.admin('U0ADMIN', { after: 50, error: clientTimeout() });
      expect(await settle(access(slack).editRefusal('U0ADMIN', log))).toBe(REFUSALS.editTimeout);
    });

    it('keeps an answer that arrives after the budget for the next check', async () => {
      const slack = fakeSlack();
      slack.group('S1', { after: 2_000, value: ['U0GROUPIE'] });
      const a = access(slack, { editors: ['S1'] });
      expect(await settle(a.editRefusal('U0GROUPIE', log))).toBe(REFUSALS.editTimeout);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(await a.editRefusal('U0GROUPIE', log)).toBeUndefined();
      expect(slack.count('usergroups.users.list')).toBe(1);
    });

    it('gives the viewer check its own sentence', async () => {
      const slack = fakeSlack();
      slack.group('S0VIEWERS', { after: 5_000, value: ['U0VIEWER'] });
      const a = access(slack, { viewers: ['S0VIEWERS'], editors: ['U0EDITOR'] });
      expect(await settle(a.viewRefusal('U0VIEWER', log))).toBe(REFUSALS.viewTimeout);
      expect(REFUSALS.viewTimeout).toMatch(/did not answer in time.*try again in a moment/);
    });
  });

  describe('when Slack answers with an error', () => {
    it('refuses with a sentence that says so, distinct from "not listed"', async () => {
      const slack = fakeSlack();
      slack.group('S1', { after: 10, value: [] });
      slack.group('S2', { after: 20, error: platformError('no_such_subteam') });
      const a = access(slack, { editors: ['S1', 'S2'] });
      expect(await settle(a.editRefusal('U0NOBODY', log))).toBe(REFUSALS.editError);
      expect(REFUSALS.editError).not.toBe(REFUSALS.edit);
      const warning = logs.records().find((r) => r.message === 'access check failed; refusing');
      expect(warning?.cometchat_ops).toMatchObject({ check: 'edit', causes: ['no_such_subteam'] });
    });

    it('still lets in a user another group lists', async () => {
      const slack = fakeSlack();
      slack.group('S1', { after: 10, error: platformError('missing_scope') });
      slack.group('S2', { after: 20, value: ['U0GROUPIE'] });
      const a = access(slack, { editors: ['S1', 'S2'] });
      expect(await settle(a.editRefusal('U0GROUPIE', log))).toBeUndefined();
    });

    it('names the admins rule when the admin check fails', async () => {
      const slack = fakeSlack();
      slack.admin('U0ADMIN', { after: 10, error: platformError('invalid_auth') });
      expect(await settle(access(slack).editRefusal('U0ADMIN', log))).toBe(
        REFUSALS.editAdminsError,
      );
      expect(REFUSALS.editAdminsError).toContain('Only workspace admins');
    });

    it('does not keep the failure: the next check asks again', async () => {
      const slack = fakeSlack();
      slack.admin('U0ADMIN', { after: 10, error: platformError('ratelimited') });
      const a = access(slack);
      expect(await settle(a.editRefusal('U0ADMIN', log))).toBe(REFUSALS.editAdminsError);
      slack.admin('U0ADMIN', { after: 10, value: true });
      expect(await settle(a.editRefusal('U0ADMIN', log))).toBeUndefined();
      expect(slack.count('users.info')).toBe(2);
    });
  });

  describe('the admin rule, when EDITORS is not set', () => {
    it('lets admins and owners edit, and tells anyone else that only they may', async () => {
      const slack = fakeSlack();
      slack.admin('U0ADMIN', { after: 10, value: true });
      const a = access(slack);
      expect(await settle(a.editRefusal('U0ADMIN', log))).toBeUndefined();
      expect(await settle(a.editRefusal('U0MEMBER', log))).toBe(REFUSALS.editAdmins);
      expect(await settle(a.canEdit('U0ADMIN', log))).toBe(true);
      expect(await settle(a.canEdit('U0MEMBER', log))).toBe(false);
    });
  });

  describe('moderating', () => {
    it('lets the people and groups of MODERATORS moderate, naming the setting to anyone else', async () => {
      const slack = fakeSlack();
      slack.group('S0MODS', { after: 10, value: ['U0INGROUP'] });
      const a = access(slack, {
        editors: ['U0EDITOR'],
        moderators: ['U0MOD', 'S0MODS'],
        moderatorsSetting: 'COMETCHAT_PROD_MODERATORS',
      });
      expect(await settle(a.moderatorRefusal('U0MOD', log))).toBeUndefined();
      expect(await settle(a.moderatorRefusal('U0INGROUP', log))).toBeUndefined();
      // An editor is not a moderator when MODERATORS names others.
      expect(await settle(a.moderatorRefusal('U0EDITOR', log))).toBe(
        "Only the people listed in the app's COMETCHAT_PROD_MODERATORS setting may review flagged and blocked messages; ask one of them, or an admin of the app.",
      );
      expect(await settle(a.editRefusal('U0EDITOR', log))).toBeUndefined();
    });

    it('lets the editors moderate when MODERATORS is not set, naming their setting', async () => {
      const slack = fakeSlack();
      const a = access(slack, { editors: ['U0EDITOR'] });
      expect(await settle(a.moderatorRefusal('U0EDITOR', log))).toBeUndefined();
      expect(await settle(a.moderatorRefusal('U0OTHER', log))).toBe(
        "Only the people listed in the app's EDITORS setting may review flagged and blocked messages; ask one of them, or an admin of the app.",
      );
    });

    it('says what was asked when approving, and refuses when Slack does not answer in time', async () => {
      const slack = fakeSlack();
      slack.group('S0SLOW', { after: 10_000, value: ['U0LATE'] });
      const a = access(slack, { moderators: ['S0SLOW'] });
      expect(
        await settle(a.moderatorRefusal('U0LATE', log, { action: 'approve-moderation' })),
      ).toBe(
        'Slack did not answer in time, so the app could not check that you may approve moderation decisions; try again in a moment.',
      );
      const warning = logs
        .records()
        .find((r) => r.message === 'access check ran out of time; refusing');
      expect(warning?.cometchat_ops).toMatchObject({ check: 'moderate' });
    });
  });

  describe('viewing', () => {
    it('lets everyone in when VIEWERS is not set, asking Slack nothing', async () => {
      const slack = fakeSlack();
      const a = access(slack, { editors: ['S1'] });
      expect(await a.viewRefusal('U0ANYONE', log)).toBeUndefined();
      expect(await a.canView('U0ANYONE', log)).toBe(true);
      expect(slack.requests).toEqual([]);
    });

    it('asks about viewers and editors at once, and lets editors in', async () => {
      const slack = fakeSlack();
      slack.group('S0VIEWERS', { after: 1_200, value: [] });
      slack.admin('U0ADMIN', { after: 1_200, value: true });
      const a = access(slack, { viewers: ['S0VIEWERS'] });
      const check = track(a.viewRefusal('U0ADMIN', log));
      await vi.advanceTimersByTimeAsync(1_200);
      expect(check).toEqual({ settled: true, value: undefined });
      expect(slack.requests.map((r) => r.method).sort()).toEqual([
        'usergroups.users.list',
        'users.info',
      ]);
      expect(new Set(slack.requests.map((r) => r.at)).size).toBe(1);
    });

    it('refuses anyone else with the VIEWERS sentence, or the error one', async () => {
      const slack = fakeSlack();
      slack.group('S0VIEWERS', { after: 10, value: ['U0VIEWER'] });
      const a = access(slack, { viewers: ['S0VIEWERS'], editors: ['U0EDITOR'] });
      expect(await settle(a.viewRefusal('U0VIEWER', log))).toBeUndefined();
      expect(await settle(a.viewRefusal('U0STRANGER', log))).toBe(REFUSALS.view);
      expect(await settle(a.canView('U0STRANGER', log))).toBe(false);

      const failing = fakeSlack();
      failing.group('S0VIEWERS', { after: 10, error: platformError('internal_error') });
      const b = access(failing, { viewers: ['S0VIEWERS'], editors: ['U0EDITOR'] });
      expect(await settle(b.viewRefusal('U0STRANGER', log))).toBe(REFUSALS.viewError);
    });
  });

  describe('the cache', () => {
    it('answers a repeated check from memory until the time is up', async () => {
      const slack = fakeSlack();
      slack.group('S1', { after: 10, value: ['U0GROUPIE'] });
      const a = access(slack, { editors: ['S1'], cacheMs: 60_000 });
      await settle(a.editRefusal('U0GROUPIE', log));
      expect(await a.editRefusal('U0GROUPIE', log)).toBeUndefined();
      expect(await a.editRefusal('U0OTHER', log)).toBe(REFUSALS.edit);
      expect(slack.count('usergroups.users.list')).toBe(1);
      await vi.advanceTimersByTimeAsync(60_000);
      await settle(a.editRefusal('U0GROUPIE', log));
      expect(slack.count('usergroups.users.list')).toBe(2);
    });

    it('shares one request between concurrent checks, viewer and editor alike', async () => {
      const slack = fakeSlack();
      slack.group('S1', { after: 500, value: ['U0GROUPIE'] });
      const a = access(slack, { editors: ['S1'], viewers: ['S1', 'U0VIEWER'] });
      const checks = Promise.all([
        a.editRefusal('U0GROUPIE', log),
        a.editRefusal('U0OTHER', log),
        a.viewRefusal('U0GROUPIE', log),
      ]);
      await vi.advanceTimersByTimeAsync(500);
      expect(await checks).toEqual([undefined, REFUSALS.edit, undefined]);
      expect(slack.count('usergroups.users.list')).toBe(1);
    });

    it('keeps at most `cacheSize` answers, forgetting the least recently used', async () => {
      const slack = fakeSlack();
      const a = access(slack, { cacheSize: 2 });
      for (const user of ['U1', 'U2', 'U3']) await settle(a.editRefusal(user, log));
      expect(slack.count('users.info')).toBe(3);
      await settle(a.editRefusal('U3', log));
      expect(slack.count('users.info')).toBe(3);
      await settle(a.editRefusal('U1', log));
      expect(slack.count('users.info')).toBe(4);
    });
  });
});

describe('requireViewer', () => {
  const log = pino({ level: 'silent' });
  const run = async (refusal: string | undefined, body: Record<string, unknown>) => {
    const next = vi.fn(async () => {});
    const ack = vi.fn(async (_response?: unknown) => {});
    const refuse = vi.fn(async (_body: unknown, _sentence: string, _log: unknown) => {});
    const viewRefusal = vi.fn(async () => refusal);
    const middleware = requireViewer({ viewRefusal }, refuse);
    await runInRequest({ ref: 'ref0000001', log, receivedAt: 0 }, () =>
      middleware({ body, context: {}, next, ack } as never),
    );
    return { next, ack, refuse, viewRefusal };
  };

  it('passes a viewer on', async () => {
    const { next, ack, viewRefusal } = await run(undefined, { user_id: 'U0VIEWER' });
    expect(viewRefusal).toHaveBeenCalledWith('U0VIEWER', log);
    expect(next).toHaveBeenCalledOnce();
    expect(ack).not.toHaveBeenCalled();
  });

  it('acknowledges anyone else and tells them why, in the words viewRefusal chose', async () => {
    const { next, ack, refuse } = await run(REFUSALS.viewTimeout, { user_id: 'U0STRANGER' });
    expect(next).not.toHaveBeenCalled();
    expect(ack).toHaveBeenCalledOnce();
    expect(refuse.mock.calls[0]?.[1]).toBe(REFUSALS.viewTimeout);
  });

  it('answers a modal submission with the refusal in the modal', async () => {
    const { ack, refuse } = await run(REFUSALS.view, {
      type: 'view_submission',
      user: { id: 'U0STRANGER' },
    });
    expect(JSON.stringify(ack.mock.calls[0]?.[0])).toContain('VIEWERS');
    expect(refuse).not.toHaveBeenCalled();
  });
});

/** Lets fake time run until `promise` settles (Slack's fake answers, the budget's timer). */
async function settle<T>(promise: Promise<T>): Promise<T> {
  const state = track(promise);
  for (let i = 0; i < 100 && !state.settled; i += 1) await vi.advanceTimersByTimeAsync(100);
  return promise;
}
