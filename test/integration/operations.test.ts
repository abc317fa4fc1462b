import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import { OFFLINE_OPERATOR } from '../../offline/stack/offline-stack.ts';
import { createMemoryStore } from '../../src/store/store.ts';
import { commandText, type Harness } from './harness.ts';
import { readiness, useHarnessStarter } from './support.ts';

// What a platform team runs the app by: liveness, readiness and metrics, through the real app.

const VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
  .version as string;

const get = async (h: Harness, path: string, port = h.app.opsPort) => {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, text: await response.text() };
};

/** One sample of a metric, by its exact label set as Prometheus prints it. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('health, readiness and metrics', () => {
  const start = useHarnessStarter();

  it('counts a command and times its CometChat request', async () => {
    const h = await start();
    expect(await commandText(h, 'roles')).toContain('CometChat roles');
    const metrics = await get(h, '/metrics');
    expect(metrics.status).toBe(200);
    expect(
      sample(
        metrics.text,
        'cometchat_ops_slack_requests_total{kind="command",name="roles",outcome="ok"}',
      ),
    ).toBe(1);
    expect(
      sample(
        metrics.text,
        'cometchat_ops_cometchat_request_duration_seconds_count{operation="listRoles",status="2xx"}',
      ),
      // The start's check of the app, and the command's.
    ).toBe(2);
    // Slack's wait for the acknowledgement, against its three seconds.
    expect(
      sample(
        metrics.text,
        'cometchat_ops_slack_ack_duration_seconds_count{kind="command",name="roles"}',
      ),
    ).toBe(1);
    expect(
      sample(
        metrics.text,
        'cometchat_ops_slack_ack_duration_seconds_bucket{le="3",kind="command",name="roles"}',
      ),
    ).toBe(1);
    // prom-client's standard Node.js metrics, under their own names, and what is running.
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_active_handles_total',
    ]) {
      expect(metrics.text).toMatch(new RegExp(`^${name}(\\{[^}]*\\})? [\\d.e+-]+$`, 'm'));
    }
    expect(
      sample(
        metrics.text,
        `cometchat_ops_build_info{version="${VERSION}",node="${process.versions.node}"}`,
      ),
    ).toBe(1);
  });

  it('on a stop, answers 503 at /readyz through the delay while still answering, then closes', async () => {
    const h = await start();
    const stopping = h.app.stop(1_500);
    const ready = await readiness(h);
    expect(ready).toEqual({
      status: 503,
      body: { ready: false, slack: 'ok', store: 'ok', serving: 'stopping' },
    });
    // A command the load balancer sends before it notices is answered in full.
    expect(await commandText(h, 'roles')).toContain('CometChat roles');
    // Still in the delay once that answer is in: the stop has not gone further.
    const first = await Promise.race([
      stopping.then(() => 'stopped'),
      new Promise((resolve) => setTimeout(() => resolve('serving'), 0)),
    ]);
    expect(first).toBe('serving');
    expect((await readiness(h)).status).toBe(503);
    await stopping;
    await expect(fetch(`http://127.0.0.1:${h.app.port}/slack/events`)).rejects.toThrow();
  });

  it('times the acknowledgement over Socket Mode too', async () => {
    const h = await start({ mode: 'socket', env: { SLACK_SIGNING_SECRET: undefined } });
    await h.slack.sendEnvelope('slash_commands', h.driver.commandFields('help'));
    const series = 'cometchat_ops_slack_ack_duration_seconds_count{kind="command",name="help"}';
    await expect
      .poll(async () => sample((await get(h, '/metrics')).text, series), { timeout: 5_000 })
      .toBe(1);
  });

  it('counts rate limits, retries, failures and Slack API errors without any id in a label', async () => {
    const h = await start();
    h.sandbox.inject({ kind: 'status', status: 429, headers: { 'retry-after': '0' }, times: 1 });
    await commandText(h, `call ${SANDBOX_SESSION_IDS.audioEnded}`);
    h.slack.fail('views.open', { error: 'expired_trigger_id', times: 1 });
    const mark = h.slack.calls.length;
    await h.driver.command('perms default');
    await h.slack.nextCall('views.open', mark);
    // A forged action id and an unknown subcommand are counted, as "other".
    await h.driver.interaction(h.driver.blockAction({ actionId: `forged_${'x'.repeat(40)}` }));
    await commandText(h, 'nosuchthing U0SECRETUSER');
    const { text } = await get(h, '/metrics');
    expect(sample(text, 'cometchat_ops_cometchat_rate_limited_total{operation="getCall"}')).toBe(1);
    expect(sample(text, 'cometchat_ops_cometchat_retries_total{operation="getCall"}')).toBe(1);
    expect(
      sample(
        text,
        'cometchat_ops_slack_api_failures_total{method="views.open",error="expired_trigger_id"}',
      ),
    ).toBe(1);
    expect(
      sample(text, 'cometchat_ops_slack_requests_total{kind="action",name="other",outcome="ok"}'),
    ).toBe(1);
    expect(text).toContain('cometchat_ops_slack_requests_total{kind="command",name="other"');
    for (const id of [
      OFFLINE_OPERATOR,
      'U0SECRETUSER',
      SANDBOX_SESSION_IDS.audioEnded,
      'cometchat-uid-2',
      'forged_',
      h.slack.botToken,
    ]) {
      expect(text).not.toContain(id);
    }
  });

  it('is ready when the store answers, and says which part is not', async () => {
    const store = createMemoryStore();
    let storeUp = true;
    const h = await start({
      store: {
        ...store,
        ping: async () => {
          if (!storeUp) throw new Error('redis://:hunter2@10.0.0.9:6379 is unreachable');
        },
      },
    });
    expect(await get(h, '/healthz')).toEqual({ status: 200, text: '{"ok":true}' });
    const ready = await get(h, '/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({
      ready: true,
      slack: 'ok',
      store: 'ok',
      serving: 'ok',
    });
    storeUp = false;
    const down = await get(h, '/readyz');
    expect(down.status).toBe(503);
    expect(JSON.parse(down.text)).toEqual({
      ready: false,
      slack: 'ok',
      store: 'not answering',
      serving: 'ok',
    });
    // Liveness is not readiness.
    expect((await get(h, '/healthz')).status).toBe(200);
    expect(down.text).not.toMatch(/hunter2|10\.0\.0\.9|redis/);
    const metrics = await get(h, '/metrics');
    expect(sample(metrics.text, 'cometchat_ops_store_errors_total{operation="ping"}')).toBe(1);
  });

  it('moves the routes to METRICS_PORT, off the public port', async () => {
    const h = await start({ env: { METRICS_PORT: '0' } });
    expect(h.app.opsPort).not.toBe(h.app.port);
    expect((await get(h, '/metrics', h.app.opsPort)).status).toBe(200);
    expect((await get(h, '/readyz', h.app.opsPort)).status).toBe(200);
    expect((await get(h, '/metrics', h.app.port)).status).toBe(404);
    expect((await get(h, '/healthz', h.app.port)).status).toBe(404);
    expect(await commandText(h, 'help')).toContain('/cometchat');
  });
});
