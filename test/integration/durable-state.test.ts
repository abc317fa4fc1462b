import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openEditor, switchCategory } from '../../offline/stack/editor-steps.ts';
import { skipRedisSuites, useRedisServer } from '../store/redis-server.ts';
import { commandReply, commandText, type Harness, startHarness, tableRecords } from './harness.ts';
import {
  allowedActions,
  applyChange,
  confirmationsAnswered,
  puts,
  reviewChange,
  useReplicas,
} from './support.ts';

/** Allowed actions shown in the Messages category of a freshly opened editor. */
async function allowedMessageActions(h: Harness): Promise<string[]> {
  const editor = await openEditor(h, 'default');
  const messages = await switchCategory(h, editor, 'Messages');
  return allowedActions(messages);
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
    await applyChange(first, { key: 'sendMessage', value: 'deny' });
    await first.stop();
    running.pop();

    const second = await startHarness({ env });
    running.push(second);
    expect(await allowedMessageActions(second)).not.toContain('sendMessage');
    expect(await commandText(second, 'audit')).toContain('1 record');
    second.checkAllPayloads();
  });
});

describe.skipIf(skipRedisSuites)('two replicas sharing Redis', { tags: ['redis'] }, () => {
  const redis = useRedisServer();
  const replicas = useReplicas();
  const twoReplicas = () => replicas({ STORE_URL: redis().url });

  it("shows a change made through one replica in the other one's pre-fill and audit", async () => {
    const [a, b] = await twoReplicas();
    await applyChange(a, { key: 'deleteMessage', value: 'deny' });
    expect(await allowedMessageActions(b)).not.toContain('deleteMessage');
    const [newest] = tableRecords(await commandReply(b, 'audit'));
    expect(newest?.Changes).toMatch(/^Message Deleting \(deleteMessage\): allow → deny$/m);
  });

  it('applies one confirmation raced from both replicas once', async () => {
    const [a, b] = await twoReplicas();
    // The server is shared by this file's tests: count what this test adds.
    const recordsBefore = recordCount(await commandText(b, 'audit'));
    const { confirmation } = await reviewChange(a, { key: 'editMessage', value: 'deny' });
    const payload = () => a.driver.viewSubmission({ view: confirmation, values: {} });
    await Promise.all([
      a.driver.interaction(payload()),
      b.driver.interaction(payload()),
      a.driver.interaction(payload()),
      b.driver.interaction(payload()),
    ]);
    await confirmationsAnswered(a, 4, 10_000);
    expect(puts(a)).toHaveLength(1);
    expect(recordCount(await commandText(b, 'audit'))).toBe(recordsBefore + 1);
  });
});

function recordCount(auditReply: string): number {
  return Number(/(\d+) records?/.exec(auditReply)?.[1] ?? Number.NaN);
}
