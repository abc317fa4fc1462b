import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Harness } from './harness.ts';
import { textOf } from './harness.ts';
import { readiness, readyzTurns, useHarnessStarter, watchRejections } from './support.ts';

// Slack drops the Socket Mode connection in every way it does in production; each time the app
// keeps running without an unhandled rejection, /readyz says so while it is down, one connection
// comes back (never two), and the next command is answered.

/** A command sent over the socket is answered on its response_url. */
async function answered(h: Harness): Promise<void> {
  const mark = h.slack.responses.length;
  await h.slack.sendEnvelope('slash_commands', h.driver.commandFields('help'));
  expect(textOf((await h.slack.nextResponse(mark)).body)).toContain('/cometchat');
}

describe('Slack outages in Socket Mode', () => {
  const start = useHarnessStarter();
  const rejections = watchRejections();
  beforeEach(() => rejections.start());
  afterEach(() => {
    rejections.stop();
    expect(rejections.seen).toEqual([]);
  });
  const socketApp = () => start({ mode: 'socket', env: { SLACK_SIGNING_SECRET: undefined } });

  it('comes back after the socket is closed without warning', async () => {
    const h = await socketApp();
    expect((await readiness(h)).body).toEqual({
      ready: true,
      slack: 'ok',
      store: 'ok',
      serving: 'ok',
    });
    h.slack.dropConnections();
    await readyzTurns(h, 503, 2_000);
    expect((await readiness(h)).body).toMatchObject({ ready: false, slack: 'not connected' });
    await readyzTurns(h, 200, 15_000);
    expect(h.slack.socketConnectionCount()).toBe(1);
    await answered(h);
  }, 30_000);

  for (const reason of ['warning', 'refresh_requested', 'too_many_websockets'] as const) {
    it(`reconnects after a disconnect message (${reason})`, async () => {
      const h = await socketApp();
      h.slack.requestReconnect(reason);
      await readyzTurns(h, 503, 2_000);
      await readyzTurns(h, 200, 15_000);
      expect(h.slack.socketConnectionCount()).toBe(1);
      await answered(h);
    }, 30_000);
  }

  it('keeps trying while apps.connections.open fails for 20 s, then connects once', async () => {
    const h = await socketApp();
    h.slack.fail('apps.connections.open', { status: 503, times: Number.POSITIVE_INFINITY });
    h.slack.dropConnections();
    await readyzTurns(h, 503, 2_000);
    await sleep(20_000);
    expect((await readiness(h)).status).toBe(503);
    const failed = h.slack.calls.filter((c) => c.method === 'apps.connections.open').length;
    h.slack.heal('apps.connections.open');
    await readyzTurns(h, 200, 40_000);
    // It kept asking during the outage (the client alone gives up after its first HTTP error).
    expect(failed).toBeGreaterThan(3);
    expect(h.slack.socketConnectionCount()).toBe(1);
    await answered(h);
    const metrics = await (await fetch(`http://127.0.0.1:${h.app.opsPort}/metrics`)).text();
    expect(metrics).toMatch(/cometchat_ops_socket_mode_reconnects_total [1-9]/);
  }, 90_000);
});
