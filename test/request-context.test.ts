import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { editorShown } from '../offline/stack/editor-steps.ts';
import { currentRequestIfAny, runInRequest } from '../src/request-context.ts';
import { commandReply, type Harness, referenceOf, startHarness } from './integration/harness.ts';
import { expectEcsLine } from './log-ecs-rules.ts';

describe('runInRequest', () => {
  it('is the reference inside, across awaits and timers, and none outside', async () => {
    expect(currentRequestIfAny()).toBeUndefined();
    const seen = await runInRequest(
      { ref: 'r1', log: pino({ enabled: false }), receivedAt: 0 },
      async () => {
        const first = currentRequestIfAny()?.ref;
        await new Promise((resolve) => setTimeout(resolve, 1));
        const later = await new Promise((resolve) =>
          setImmediate(() => resolve(currentRequestIfAny()?.ref)),
        );
        return [first, later];
      },
    );
    expect(seen).toEqual(['r1', 'r1']);
    expect(currentRequestIfAny()).toBeUndefined();
  });
});

// The real app (Bolt over its receiver, its Web API clients, the CometChat client) against the
// stand-ins, at debug level, where Bolt and the Web API client log each step of a request.
describe('a request’s reference on every line of it, through the real app', () => {
  const running: Harness[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((h) => h.stop()));
  });

  /** Sends `/cometchat <text>` the way the mode takes it. */
  async function command(h: Harness, mode: 'http' | 'socket', text: string): Promise<void> {
    if (mode === 'http') await h.driver.command(text);
    else await h.slack.sendEnvelope('slash_commands', h.driver.commandFields(text));
  }

  /** Once nothing more is logged for a while: the request's last lines are written. */
  async function settled(h: Harness): Promise<void> {
    let count = -1;
    await h.slack.waitFor(() => {
      const same = h.logs.lines.length === count;
      count = h.logs.lines.length;
      return same || undefined;
    });
  }

  async function started(mode: 'http' | 'socket', env: Record<string, string> = {}) {
    const h = await startHarness({
      mode,
      env: mode === 'socket' ? { ...env, SLACK_SIGNING_SECRET: undefined } : env,
    });
    running.push(h);
    // Bolt makes a team's Web API client with the team's first request, and logs that before
    // the middleware runs: a first request, and the sweep the app runs at start, out of the way.
    const before = h.slack.responses.length;
    await command(h, mode, 'help');
    await h.slack.nextResponse(before);
    await settled(h);
    h.logs.lines.length = 0;
    return h;
  }

  /**
   * Every line written since the logs were emptied, checked as ECS, and the one reference all
   * carry. The Socket Mode client logs an envelope as it arrives, before Bolt makes a request
   * of it: that line has the envelope's id, which the request's own "Calling ack()" line names.
   */
  function theOneReference(h: Harness): unknown {
    const lines = h.logs.lines.filter(
      (line) => !line.includes('Received a message on the WebSocket'),
    );
    const refs = new Set(lines.map((line) => refOf(expectEcsLine(line))));
    const without = lines.filter((line) => refOf(JSON.parse(line)) === undefined);
    expect(without, 'lines without a reference').toEqual([]);
    expect([...refs]).toHaveLength(1);
    const [ref] = refs;
    expect(ref).toMatch(/^[0-9a-f]{10}$/);
    return ref;
  }

  for (const mode of ['http', 'socket'] as const) {
    it(`${mode}: the app’s lines, Bolt’s, the Web API client’s and the CometChat client’s`, async () => {
      const h = await started(mode);
      // The editor: an access check (users.info), CometChat's roles and catalogue, views.open.
      const mark = h.slack.calls.length;
      await command(h, mode, 'perms default');
      await editorShown(h, mark);
      await settled(h);
      const ref = theOneReference(h);
      const lines = h.logs.records();
      const fromBolt = lines.filter((r) => r.log.logger === 'bolt').map((r) => r.message);
      expect(fromBolt).toEqual(
        expect.arrayContaining(["apiCall('users.info') start", "apiCall('views.open') start"]),
      );
      const fromCometChat = lines.filter((r) => r.message === 'CometChat request done');
      expect(fromCometChat.map((r) => r.cometchat_ops.operation)).toContain('listRoles');
      expect(lines.find((r) => r.message === 'editor opened')).toMatchObject({
        user: { id: 'U0OPERATOR' },
        organization: { id: expect.any(String) },
        cometchat_ops: { ref, type: 'command', command: '/cometchat', subcommand: 'perms' },
      });
    });
  }

  it('a failing request: the retries, the failure and its reply under the request’s reference', async () => {
    const h = await started('http', { COMETCHAT_TIMEOUT_MS: '300', COMETCHAT_BUDGET_MS: '1000' });
    h.sandbox.inject({ kind: 'status', status: 503, times: Number.POSITIVE_INFINITY });
    const reply = await commandReply(h, 'roles');
    await settled(h);
    const ref = theOneReference(h);
    expect(referenceOf(reply)).toBe(ref);
    expect(h.logs.records().map((r) => r.message)).toEqual(
      expect.arrayContaining([
        'ack() call begins (body: [object Object])',
        'retrying CometChat request',
        'CometChat request failed',
        'request failed',
      ]),
    );
  });

  it('the failure’s reply sent by Bolt’s error handler, outside the middleware: still that reference', async () => {
    const h = await started('http', { COMETCHAT_TIMEOUT_MS: '300', COMETCHAT_BUDGET_MS: '1000' });
    h.sandbox.inject({ kind: 'status', status: 503, times: Number.POSITIVE_INFINITY });
    // The response_url refuses, so the error handler replies through the Web API client.
    h.slack.failResponseUrls(404, 5);
    const mark = h.slack.calls.length;
    await h.driver.command('roles');
    await h.slack.nextCall('chat.postEphemeral', mark);
    await settled(h);
    theOneReference(h);
    expect(
      h.logs.records().filter((r) => r.log.logger === 'bolt').length,
      'the Web API client’s lines',
    ).toBeGreaterThan(0);
  });
});

/** The reference of a line, as written (dotted keys) or as indexed. */
function refOf(line: Record<string, unknown>): unknown {
  return line['cometchat_ops.ref'] ?? (line.cometchat_ops as { ref?: unknown } | undefined)?.ref;
}
