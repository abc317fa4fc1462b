import { writeFile } from 'node:fs/promises';
import type { Sandbox } from '../offline/cometchat-standin/server.ts';
import type { SlackStandIn } from '../offline/slack-standin/server.ts';
import { OFFLINE_SECRETS } from '../offline/stack/offline-stack.ts';
import type { Prepared } from './load.ts';
import { type Subject, spawnSubject } from './processes.ts';
import { SIGNING_SECRET } from './stack.ts';

// Each command is judged against the same command in bare Bolt (baselines/same-in-bolt.mjs):
// the CometChat requests it makes, through ky, and the reply or view it sends, through Bolt's
// respond() or client. A command that must ask CometChat cannot cost less than that on this
// stack (a bare Bolt app making one ky request already spends about twice bare Bolt's CPU:
// BENCHMARKS.md), so what the budgets hold the app to is its own work on top of it. The script
// is taken from the app itself, once warm, so that the two cannot drift apart: the same
// acknowledgement, requests, and reply or view.

/**
 * What one command does outside the app: its acknowledgement's body (none, or its progress
 * message), its CometChat GETs, then its reply or its view.
 */
export interface ScriptStep {
  ack?: Record<string, unknown>;
  gets: string[];
  reply?: Record<string, unknown>;
  view?: Record<string, unknown>;
}

/** The full address of each request the sandbox recorded, query included, in order. */
function addresses(sandbox: Sandbox): string[] {
  return sandbox.requests.map((request) => {
    if (request.method !== 'GET') {
      throw new Error(`bench: the app sent a ${request.method} for a command the bench measures`);
    }
    const base = request.host === 'call' ? sandbox.callUrl : sandbox.apiUrl;
    const query = new URLSearchParams(request.query).toString();
    return `${base}${request.path}${query ? `?${query}` : ''}`;
  });
}

/**
 * Sends `command` once to the warm app at `port` and records what it did outside: the CometChat
 * requests and the reply (or, with `opensView`, the view). The stand-ins' records are cleared
 * before and after.
 */
export async function captureStep(options: {
  port: number;
  command: () => Prepared;
  slack: SlackStandIn;
  sandbox: Sandbox;
  opensView: boolean;
}): Promise<ScriptStep> {
  const { slack, sandbox } = options;
  slack.reset();
  sandbox.requests.length = 0;
  const prepared = options.command();
  const answer = await fetch(`http://127.0.0.1:${options.port}/slack/events`, {
    method: 'POST',
    headers: prepared.headers,
    body: prepared.body,
  });
  const acknowledged = await answer.text();
  if (!answer.ok) throw new Error('bench: the app did not answer the command to script');
  const deadline = performance.now() + 5_000;
  const done = () =>
    options.opensView
      ? slack.calls.some((call) => call.method === 'views.open')
      : slack.responses.length > 0;
  while (!done()) {
    if (performance.now() > deadline) throw new Error('bench: no reply to the command to script');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const view = slack.calls.findLast((call) => call.method === 'views.open')?.args.view;
  const reply = slack.responses.at(-1)?.body;
  const step: ScriptStep = {
    ...(acknowledged ? { ack: JSON.parse(acknowledged) as Record<string, unknown> } : {}),
    gets: addresses(sandbox),
    ...(options.opensView ? { view: view as Record<string, unknown> } : reply && { reply }),
  };
  slack.reset();
  sandbox.requests.length = 0;
  return step;
}

export const SAME_IN_BOLT_ENTRY = 'bench/baselines/same-in-bolt.mjs';

/** The same-in-Bolt subject's settings: the stand-ins, and its script in `scriptFile`. */
export function sameInBoltEnv(slack: SlackStandIn, scriptFile: string): Record<string, string> {
  return {
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_API_URL: slack.apiUrl,
    COMETCHAT_API_KEY: OFFLINE_SECRETS.apiKey,
    BENCH_SCRIPT: scriptFile,
  };
}

/** Starts the same-in-Bolt subject on `script` (written to `scriptFile`). */
export async function startSameInBolt(options: {
  script: Record<string, ScriptStep>;
  scriptFile: string;
  slack: SlackStandIn;
  logFile: string;
}): Promise<Subject> {
  await writeFile(options.scriptFile, JSON.stringify(options.script));
  return spawnSubject({
    name: 'same-in-bolt',
    entry: SAME_IN_BOLT_ENTRY,
    env: sameInBoltEnv(options.slack, options.scriptFile),
    logFile: options.logFile,
  });
}
