import {
  SANDBOX_SESSION_IDS,
  type Sandbox,
  startSandbox,
} from '../offline/cometchat-standin/server.ts';
import { createSlackDriver, signSlackRequest } from '../offline/slack-standin/driver.ts';
import { type SlackStandIn, startSlackStandIn } from '../offline/slack-standin/server.ts';
import { isLoadingView } from '../offline/stack/editor-steps.ts';
import { OFFLINE_SECRETS } from '../offline/stack/offline-stack.ts';
import type { Prepared } from './load.ts';

// What every bench tool gives the app it measures: the stand-ins, its settings against them, and
// the signed slash commands it is sent.

export const SIGNING_SECRET = OFFLINE_SECRETS.signingSecret;

/**
 * The sandbox (20 ms an answer, as `npm run bench` injects), the Slack stand-in, and a driver
 * that signs requests as Slack does; `close` stops both services.
 */
export async function startStandIns() {
  const sandbox = await startSandbox({ apiKey: OFFLINE_SECRETS.apiKey, latencyMs: 20 });
  const slack = await startSlackStandIn();
  const driver = createSlackDriver({
    appUrl: 'unused',
    signingSecret: SIGNING_SECRET,
    standIn: slack,
  });
  const close = async () => {
    await Promise.allSettled([slack.close(), sandbox.close()]);
  };
  return { sandbox, slack, driver, close };
}

/** Each command the tools send, as a person would type it. */
export const COMMAND_TEXTS = {
  help: 'help',
  roles: 'roles',
  /** A group meeting with 12 participants. */
  call: `call ${SANDBOX_SESSION_IDS.groupOngoing}`,
  /** A page of 10 calls. */
  calls: 'calls',
  perms: 'perms default',
} as const;

/** The text for a name of COMMAND_TEXTS, or the name itself as the text. */
export function commandText(name: string): string {
  return (COMMAND_TEXTS as Record<string, string>)[name] ?? name;
}

/** The app's settings against the sandbox and the Slack stand-in, its store at `storeUrl`. */
export function appEnv(
  slack: SlackStandIn,
  sandbox: Sandbox,
  storeUrl: string,
): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    COMETCHAT_API_KEY: OFFLINE_SECRETS.apiKey,
    COMETCHAT_API_URL: sandbox.apiUrl,
    COMETCHAT_CALL_API_URL: sandbox.callUrl,
    LOG_LEVEL: 'info',
    // The bench's user may edit by name, as with EDITORS in production: the editor's access
    // check then needs no users.info (whose stand-in users are reset between rounds).
    EDITORS: 'U0OPERATOR',
    STORE_URL: storeUrl,
    // No load balancer to drain from: a stop goes straight to closing, so that the subject exits
    // (and writes a --cpu-prof profile) within the bench's five seconds before SIGKILL.
    SHUTDOWN_DELAY_MS: '0',
    // Set, and blank, so that a developer's .env (which main.ts reads, never overriding what is
    // set) cannot switch the app to Socket Mode or another CometChat app.
    SLACK_APP_TOKEN: '',
    COMETCHAT_APP_ID: '',
    COMETCHAT_REGION: '',
    COMETCHAT_TIMEOUT_MS: '',
    COMETCHAT_BUDGET_MS: '',
    VIEWERS: '',
    AUDIT_CHANNEL: '',
  };
}

/**
 * A signed slash command with a fresh response_url and trigger_id, keyed by one of them (so a
 * reply or a view can be matched to the command that caused it).
 */
export function signedCommand(
  driver: ReturnType<typeof createSlackDriver>,
  text: string,
  keyBy: 'response_url' | 'trigger_id' = 'response_url',
): Prepared {
  const fields = driver.commandFields(text);
  const body = new URLSearchParams({ ...fields }).toString();
  return {
    body,
    key: keyBy === 'trigger_id' ? fields.trigger_id : (fields.response_url.split('/').pop() ?? ''),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...signSlackRequest(SIGNING_SECRET, body),
    },
  };
}

/** Waits until `count()` reaches `expected`, or 15 s passed; what is missing is counted later. */
export async function drain(count: () => number, expected: number): Promise<void> {
  const deadline = performance.now() + 15_000;
  while (count() < expected) {
    if (performance.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Waits until `expected` posts reached the response_urls, taken or refused (or 15 s passed). */
export function drainReplies(slack: SlackStandIn, expected: number): Promise<void> {
  return drain(() => slack.responses.length + slack.refusedResponses.length, expected);
}

/** Editors shown in full: opened filled in, or opened on "Loading…" and filled in later. */
export function editorsShown(slack: SlackStandIn): number {
  let shown = 0;
  for (const call of slack.calls) {
    if (call.method === 'views.update') shown += 1;
    else if (call.method === 'views.open' && !isLoadingView(call.args.view)) shown += 1;
  }
  return shown;
}
