import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  confirm,
  confirmationOf,
  openEditor,
  submitView,
  switchCategory,
  withFieldSet,
} from '../../src/dev/editor-steps.ts';
import { startOfflineStack } from '../../src/dev/offline-stack.ts';
import { initialStateValues } from '../../src/slack-standin/view-state.ts';
import { useRedisServer } from '../store/redis-server.ts';
import { type Harness, startHarness, textOf } from './harness.ts';

/** Allowed actions shown in the Messages category of a freshly opened editor. */
async function allowedMessageActions(h: Harness): Promise<string[]> {
  const editor = await openEditor(h, 'default');
  const messages = await switchCategory(h, editor, 'Messages');
  const values = Object.entries(initialStateValues(messages)).find(([id]) =>
    id.startsWith('a:'),
  )?.[1];
  const field = values?.perms_field as { selected_options: { value: string }[] } | undefined;
  return (field?.selected_options ?? []).map((o) => o.value);
}

async function applyDeny(h: Harness, key: string) {
  const editor = await openEditor(h, 'default');
  const messages = await switchCategory(h, editor, 'Messages');
  await submitView(h, messages, withFieldSet(messages, key, 'deny'));
  const confirmation = confirmationOf(h, editor);
  if (!confirmation) throw new Error('no confirmation');
  return confirm(h, confirmation);
}

async function auditText(h: Harness): Promise<string> {
  const mark = h.slack.responses.length;
  await h.driver.command('audit');
  return textOf((await h.slack.nextResponse(mark)).body);
}

describe('SQLite state survives a restart', () => {
  let dir: string;
  const running: Harness[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cometchat-ops-'));
  });
  afterEach(async () => {
    for (const h of running.splice(0)) await h.stop();
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the last known permissions and the audit trail across a restart', async () => {
    const env = { STORE_URL: join(dir, 'state.sqlite') };
    const first = await startHarness({ env });
    running.push(first);
    await applyDeny(first, 'sendMessage');
    await first.stop();
    running.pop();

    const second = await startHarness({ env });
    running.push(second);
    expect(await allowedMessageActions(second)).not.toContain('sendMessage');
    expect(await auditText(second)).toContain('1 record');
    second.checkAllPayloads();
  });
});

describe('two replicas sharing Redis', () => {
  const redis = useRedisServer();
  const running: Harness[] = [];
  afterEach(async () => {
    for (const h of running.splice(0).reverse()) await h.stop();
  });

  async function twoReplicas(): Promise<[Harness, Harness]> {
    const env = { STORE_URL: redis().url };
    const a = await startHarness({ env });
    running.push(a);
    // The second replica talks to the same CometChat and the same Slack as the first.
    const bStack = await startOfflineStack({
      env: { ...env, LOG_LEVEL: 'debug' },
      shared: { sandbox: a.sandbox, slack: a.slack },
    });
    const b: Harness = { ...a, ...bStack, logs: a.logs, stop: bStack.stop };
    running.push(b);
    return [a, b];
  }

  it("shows a change made through one replica in the other one's pre-fill and audit", async () => {
    const [a, b] = await twoReplicas();
    await applyDeny(a, 'deleteMessage');
    expect(await allowedMessageActions(b)).not.toContain('deleteMessage');
    expect(await auditText(b)).toMatch(/deleteMessage.*allow → deny/);
  });

  it('applies one confirmation raced from both replicas once', async () => {
    const [a, b] = await twoReplicas();
    // The server is shared by this file's tests: count what this test adds.
    const recordsBefore = recordCount(await auditText(b));
    const editor = await openEditor(a, 'default');
    const messages = await switchCategory(a, editor, 'Messages');
    await submitView(a, messages, withFieldSet(messages, 'editMessage', 'deny'));
    const confirmation = confirmationOf(a, editor);
    if (!confirmation) throw new Error('no confirmation');
    const payload = () => a.driver.viewSubmission({ view: confirmation, values: {} });
    await Promise.all([
      a.driver.interaction(payload()),
      b.driver.interaction(payload()),
      a.driver.interaction(payload()),
      b.driver.interaction(payload()),
    ]);
    await a.slack.waitFor(
      () =>
        a.slack.calls.filter(
          (c) =>
            c.method === 'views.update' &&
            /Resulting permissions|already submitted/.test(textOf(c.args.view)),
        ).length >= 4
          ? true
          : undefined,
      10_000,
    );
    expect(a.sandbox.requests.filter((r) => r.method === 'PUT')).toHaveLength(1);
    expect(recordCount(await auditText(b))).toBe(recordsBefore + 1);
  });
});

function recordCount(auditReply: string): number {
  return Number(/(\d+) records?/.exec(auditReply)?.[1] ?? Number.NaN);
}
