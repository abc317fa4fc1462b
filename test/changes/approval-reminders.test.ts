import type { WebClient } from '@slack/web-api';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { checkMessage } from '../../offline/slack-standin/block-kit-limits.ts';
import type { Access } from '../../src/access/access.ts';
import { type ApprovalReminder, createApps } from '../../src/apps/apps.ts';
import { outcomeNotice, reminderMessage } from '../../src/changes/approval-view.ts';
import { remindApprovals, reminderClaim, reminderDue } from '../../src/changes/approvals.ts';
import { decisionClaim } from '../../src/changes/decide.ts';
import type { CometChatClient } from '../../src/cometchat/client.ts';
import { type ApprovalRequest, createMemoryStore, type Store } from '../../src/store/store.ts';

// The one reminder of a request nobody decided: a memory store, a recording Slack client, a
// clock the test moves.

const START = 1_800_000_000_000;
const MINUTE = 60_000;
const REMINDER: ApprovalReminder = {
  afterMs: 60 * MINUTE,
  approvers: ['U0OPERATOR', 'U0LEAD', 'S0SRE'],
  moderators: ['U0MOD'],
};

const request = (id: string, more: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  id: id.padStart(24, '0'),
  app: 'default',
  role: 'default',
  changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
  teamId: 'T1',
  requester: 'U0OPERATOR',
  requestedAt: START,
  expiresAt: START + 24 * 60 * MINUTE,
  channel: 'C0APPROVE',
  ts: `1700000000.${id.padStart(6, '0')}`,
  status: 'open',
  ...more,
});

interface Posted {
  channel: string;
  thread_ts?: string | undefined;
  text: string;
}

function setup({ reminder }: { reminder?: ApprovalReminder } = { reminder: REMINDER }) {
  let now = START;
  const clock = () => now;
  const store = createMemoryStore(clock);
  const posted: Posted[] = [];
  const failures: string[] = [];
  const client = {
    chat: {
      postMessage: async (args: Posted) => {
        const refusal = failures.shift();
        // The client's own errors carry a `code` and no answer's body.
        if (refusal?.startsWith('slack_webapi_')) {
          throw Object.assign(new Error('A rate limit was exceeded'), { code: refusal });
        }
        if (refusal !== undefined) {
          throw Object.assign(new Error(`An API error occurred: ${refusal}`), {
            data: { ok: false, error: refusal },
          });
        }
        posted.push({ channel: args.channel, thread_ts: args.thread_ts, text: args.text });
        return { ok: true, ts: '1700000001.000100' };
      },
    },
  } as unknown as WebClient;
  const apps = createApps([
    {
      name: 'default',
      appId: 'app',
      region: 'us',
      apiKey: 'key',
      cometchat: {} as CometChatClient,
      access: {} as Access,
      approval: { channel: 'C0APPROVE', ttlMs: 24 * 60 * MINUTE, reminder },
    },
  ]);
  const log = pino({ level: 'silent' });
  const sweep = (deps: { store: Store } = { store }) =>
    remindApprovals({ ...deps, apps, now: clock }, client, log);
  return {
    store,
    posted,
    sweep,
    at: (ms: number) => {
      now = ms;
    },
    failNext: (refusal = 'ratelimited') => {
      failures.push(refusal);
    },
  };
}

describe('reminderDue', () => {
  const at = START + 60 * MINUTE;
  it('is due once the reminder time has passed, for an open, posted, unreminded request', () => {
    expect(reminderDue(request('1'), REMINDER, at)).toBe(true);
    expect(reminderDue(request('1'), REMINDER, at - 1)).toBe(false);
    expect(reminderDue(request('1'), undefined, at)).toBe(false);
    expect(reminderDue(request('1', { remindedAt: at }), REMINDER, at)).toBe(false);
    expect(reminderDue(request('1', { ts: undefined }), REMINDER, at)).toBe(false);
    expect(reminderDue(request('1', { status: 'rejected' }), REMINDER, at)).toBe(false);
    expect(reminderDue(request('1', { expiresAt: at - 1 }), REMINDER, at)).toBe(false);
  });
});

describe('remindApprovals', () => {
  it('reminds the approvers once, in the request thread, however often it sweeps', async () => {
    const { store, posted, sweep, at } = setup();
    await store.putApproval(request('1'));
    await store.putApproval(request('2', { requestedAt: START + 30 * MINUTE }));
    at(START + 59 * MINUTE);
    expect(await sweep()).toBe(0);
    at(START + 61 * MINUTE);
    expect(await sweep()).toBe(1);
    for (let minute = 62; minute < 89; minute += 1) {
      at(START + minute * MINUTE);
      expect(await sweep()).toBe(0);
    }
    at(START + 91 * MINUTE);
    expect(await sweep()).toBe(1);
    at(START + 200 * MINUTE);
    expect(await sweep()).toBe(0);
    expect(posted.map((p) => [p.channel, p.thread_ts])).toEqual([
      ['C0APPROVE', '1700000000.000001'],
      ['C0APPROVE', '1700000000.000002'],
    ]);
    // Not the requester, who may not decide their own request (the thread's first message
    // names them): a mention would notify them.
    expect(posted[0]?.text).toMatch(/^:bell: <@U0LEAD> <!subteam\^S0SRE>: /);
    expect(posted[0]?.text).not.toContain('<@U0OPERATOR>');
    expect(posted[0]?.text).toContain('`sendMessage`');
    expect((await store.getApproval(request('1').id))?.remindedAt).toBe(START + 61 * MINUTE);
    expect((await store.getApproval(request('1').id))?.status).toBe('open');
  });

  it("mentions a message decision's moderators, and nobody by name when no one is listed", () => {
    const decision = request('3', {
      role: '',
      subject: { kind: 'message', id: '9001', queue: 'flagged' },
      changes: [{ key: 'status', before: 'flagged', after: 'approved', explicit: false }],
    });
    expect(reminderMessage(decision, ['U0MOD']).text).toMatch(/^:bell: <@U0MOD>: /);
    expect(reminderMessage(decision, []).text).toMatch(/^:bell: Workspace admins: /);
    const many = Array.from({ length: 23 }, (_, i) => `U0${String(i).padStart(3, '0')}`);
    expect(reminderMessage(decision, many).text).toContain('<@U0019> and 3 more:');
    expect(checkMessage(reminderMessage(decision, many))).toEqual([]);
  });

  it('reminds no request decided meanwhile, nor any when reminders are off', async () => {
    const { store, posted, sweep, at } = setup();
    const open = request('4');
    await store.putApproval({ ...open, status: 'applied', decidedBy: 'U0LEAD' });
    at(START + 61 * MINUTE);
    // The list was read before the decision was stored.
    expect(await sweep({ store: { ...store, listOpenApprovals: async () => [open] } })).toBe(0);
    expect(posted).toEqual([]);
    expect((await store.getApproval(open.id))?.remindedAt).toBeUndefined();

    const off = setup({});
    await off.store.putApproval(request('5'));
    off.at(START + 61 * MINUTE);
    expect(await off.sweep()).toBe(0);
    expect(off.posted).toEqual([]);
  });

  it('tries again on the next sweep when Slack refused the post, then never again', async () => {
    const { store, posted, sweep, at, failNext } = setup();
    await store.putApproval(request('6'));
    at(START + 61 * MINUTE);
    failNext();
    expect(await sweep()).toBe(0);
    expect((await store.getApproval(request('6').id))?.remindedAt).toBeUndefined();
    at(START + 62 * MINUTE);
    expect(await sweep()).toBe(1);
    at(START + 63 * MINUTE);
    expect(await sweep()).toBe(0);
    expect(posted).toHaveLength(1);
  });

  it("tries again after the client's own rate-limit error", async () => {
    const { store, posted, sweep, at, failNext } = setup();
    await store.putApproval(request('9'));
    at(START + 61 * MINUTE);
    failNext('slack_webapi_rate_limited_error');
    expect(await sweep()).toBe(0);
    at(START + 62 * MINUTE);
    expect(await sweep()).toBe(1);
    expect(posted).toHaveLength(1);
  });

  it('never tries again when Slack refused the post for good', async () => {
    const { store, posted, sweep, at, failNext } = setup();
    await store.putApproval(request('8'));
    at(START + 61 * MINUTE);
    failNext('not_in_channel');
    expect(await sweep()).toBe(0);
    for (const minute of [62, 63, 120]) {
      at(START + minute * MINUTE);
      expect(await sweep()).toBe(0);
    }
    expect(posted).toEqual([]);
  });

  it('counts a post Slack took as sent when the store then fails, and never sends it again', async () => {
    const { store, posted, sweep, at } = setup();
    await store.putApproval(request('9'));
    at(START + 61 * MINUTE);
    const failing: Store = {
      ...store,
      putApproval: async () => {
        throw new Error('store down');
      },
    };
    expect(await sweep({ store: failing })).toBe(1);
    at(START + 62 * MINUTE);
    expect(await sweep()).toBe(0);
    expect(posted).toHaveLength(1);
  });

  it('keeps a decision being made while it reminds, and still reminds only once', async () => {
    const { store, posted, sweep, at } = setup();
    const open = request('7');
    await store.putApproval(open);
    at(START + 61 * MINUTE);
    // An approver holds the decision: the reminder goes, but the request is not written over.
    await store.claim(decisionClaim(open.id), 120);
    expect(await sweep()).toBe(1);
    expect((await store.getApproval(open.id))?.remindedAt).toBeUndefined();
    await store.release(decisionClaim(open.id));
    // The claim, held past the expiry, keeps it once without the stored time.
    at(START + 23 * 60 * MINUTE);
    expect(await sweep()).toBe(0);
    expect(posted).toHaveLength(1);
    expect(await store.claim(reminderClaim(open.id), 60)).toBe(false);
  });
});

describe('the expiry notice', () => {
  it('tells the requester what expired, in which app, when, and how to ask again', () => {
    const expired = { ...request('8'), status: 'expired' as const };
    const notice = outcomeNotice(expired, 'prod');
    expect(notice.text).toContain('Your request to change `default` in *prod*: :hourglass:');
    expect(notice.text).toContain(`Expired <!date^${expired.expiresAt / 1000}^`);
    expect(notice.text).toContain('nothing was sent. Ask again from the editor.');
    expect(JSON.stringify(notice.blocks)).toContain(`Asked <!date^${START / 1000}^`);
  });
});
