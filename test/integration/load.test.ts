import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import { signSlackRequest } from '../../offline/slack-standin/driver.ts';
import { type Harness, startHarness, textOf } from './harness.ts';
import { withoutHolderCounts } from './support.ts';

// Many people at once, against a CometChat that answers slowly: every command is acknowledged
// before its answer (the work comes after the acknowledgement, which carries the progress
// message), and every one is answered, on its own response_url, with its own answer. How fast
// the acknowledgements are is a budget of `npm run bench` (BENCHMARKS.md), measured against a
// baseline in the same run: no wall-clock bound here, which a loaded machine would break.

const COMMANDS = 200;
const SANDBOX_LATENCY_MS = 1000;

/** What each command asks, and a piece of text only its own answer holds. */
const MIX: { text: string; answer: string }[] = [
  { text: 'roles', answer: 'CometChat roles' },
  { text: `call ${SANDBOX_SESSION_IDS.audioEnded}`, answer: 'Audio call' },
  { text: `call ${SANDBOX_SESSION_IDS.unanswered}`, answer: 'Video call' },
  { text: 'roles 2', answer: 'CometChat roles' },
];

/**
 * Slack's side of the burst, in a process of its own, as Slack is: it posts every request at
 * once and times each from its send to the app's answer. Sharing the app's event loop, the
 * sender's own work (200 connections, encoding) would be counted against the app.
 */
const SENDER = `
let input = '';
for await (const chunk of process.stdin) input += chunk;
const requests = JSON.parse(input);
const results = await Promise.all(requests.map(async ({ url, body, headers }) => {
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  return { status: response.status, ms: performance.now() - started, at: Date.now(), text };
}));
process.stdout.write(JSON.stringify(results));
`;

interface Sent {
  status: number;
  ms: number;
  /** When the acknowledgement arrived (Unix ms, the machine's clock, as the stand-in's `at`). */
  at: number;
  /** The acknowledgement's body. */
  text: string;
}

function sendAtOnce(requests: { url: string; body: string; headers: object }[]): Promise<Sent[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', SENDER], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(JSON.parse(output) as Sent[]);
      else reject(new Error(`the sender exited with ${code}`));
    });
    child.stdin.end(JSON.stringify(requests));
  });
}

describe('load', () => {
  let h: Harness;
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onRejection);
    h = await startHarness({
      sandboxLatencyMs: SANDBOX_LATENCY_MS,
      // Each attempt may take the whole budget: on a loaded machine 200 answers of one second
      // each can queue past the default 3 s per attempt, and a retried request would count
      // twice in the sandbox's log below (the person would still get one answer).
      env: { LOG_LEVEL: 'info', COMETCHAT_TIMEOUT_MS: '8000' },
    });
  });
  afterAll(async () => {
    await h?.stop();
    process.off('unhandledRejection', onRejection);
  });

  it(`${COMMANDS} slash commands at once, CometChat taking ${SANDBOX_LATENCY_MS} ms each`, async () => {
    // Signed just before they go, as Slack signs each request as it sends it.
    const commands = Array.from({ length: COMMANDS }, (_, i) => {
      const fields = h.driver.commandFields((MIX[i % MIX.length] as { text: string }).text);
      const body = new URLSearchParams({ ...fields }).toString();
      return {
        responseUrl: fields.response_url,
        request: {
          url: h.appUrl,
          body,
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            ...signSlackRequest(h.config.slack.signingSecret ?? '', body),
          },
        },
      };
    });
    const started = performance.now();
    const sending = sendAtOnce(commands.map((c) => c.request));
    // While they are in flight, the health check still answers.
    await h.slack.waitFor(() => (h.sandbox.requests.length > 0 ? true : undefined));
    expect((await fetch(`http://127.0.0.1:${h.app.port}/healthz`)).status).toBe(200);

    const sent = await sending;
    const slowest = Math.max(...sent.map((s) => s.ms));
    expect(sent.map((s) => s.status)).toEqual(Array(COMMANDS).fill(200));
    // Each acknowledgement is the progress message, not the answer: none waited on CometChat.
    for (const ack of sent) expect(ack.text).toContain(':hourglass_flowing_sand:');

    await h.slack.waitFor(
      () => (h.slack.responses.length >= COMMANDS ? true : undefined),
      SANDBOX_LATENCY_MS + 20_000,
    );
    const answered = performance.now() - started;

    // Each command got exactly one answer, on its own response_url, and the right one.
    const byUrl = new Map(h.slack.responses.map((r) => [r.id, r.body]));
    expect(byUrl.size).toBe(COMMANDS);
    const answeredAt = new Map(h.slack.responses.map((r) => [r.id, r.at]));
    commands.forEach((command, i) => {
      const id = command.responseUrl.split('/').at(-1) ?? '';
      const body = byUrl.get(id);
      expect(body, `no answer for command ${i}`).toBeDefined();
      expect(textOf(body)).toContain((MIX[i % MIX.length] as { answer: string }).answer);
      // Acknowledged before it was answered.
      expect(sent[i]?.at, `command ${i} acknowledged after its answer`).toBeLessThanOrEqual(
        answeredAt.get(id) ?? 0,
      );
    });
    expect(h.slack.refusedResponses).toEqual([]);
    expect(h.logs.errors()).toEqual([]);
    expect(withoutHolderCounts(h)).toHaveLength(COMMANDS);
    expect(rejections).toEqual([]);
    h.checkAllPayloads();
    expect((await fetch(`http://127.0.0.1:${h.app.port}/healthz`)).status).toBe(200);
    console.info(
      `load: ${COMMANDS} commands, slowest acknowledgement ${Math.round(slowest)} ms, all answered in ${Math.round(answered)} ms`,
    );
  }, 60_000);
});
