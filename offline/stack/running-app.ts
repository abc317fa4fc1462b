import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { createSlackDriver, type SlackDriver } from '../slack-standin/driver.ts';
import { connectSlackStandIn, type RemoteSlackStandIn } from '../slack-standin/remote.ts';

// The app `npm run start:offline` runs, seen from another process (`npm run try -- --app`):
// driven over HTTP with the settings `npm run standins` wrote, as Slack would drive it, and read
// back through that Slack stand-in (remote.ts).

export interface DrivenApp {
  /** Where the app takes Slack's requests: `…/slack/events`. */
  appUrl: string;
  slack: RemoteSlackStandIn;
  driver: SlackDriver;
  close(): void;
}

/** Said when the try cannot reach what it should drive; the try exits with it, nothing sent. */
export class NotRunning extends Error {}

/** How long a starting app is waited for before it is called absent. */
const READY_WITHIN_MS = 5_000;

/** `http://host:port` as the app's address for Slack's requests; a path given is kept. */
export function eventsUrl(address: string): string {
  const url = new URL(address);
  if (url.pathname === '/') url.pathname = '/slack/events';
  return url.href;
}

/** The settings file `npm run standins` wrote, or a sentence saying to start them. */
export function readOfflineSettings(file: string): Record<string, string | undefined> {
  try {
    return parseEnv(readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new NotRunning(
      `There is no ${file}: start the stand-ins first (npm run standins), then the app (npm run start:offline).`,
    );
  }
}

/** Resolves once the app's /readyz answers 200; a sentence naming the address if it never does. */
async function untilReady(appUrl: string): Promise<void> {
  const readyz = new URL('/readyz', appUrl).href;
  const deadline = Date.now() + READY_WITHIN_MS;
  let last = 'nothing listens there';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(readyz, { signal: AbortSignal.timeout(2_000) });
      await response.body?.cancel();
      if (response.ok) return;
      last = `/readyz answers ${response.status}`;
    } catch {
      // Not listening (yet).
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new NotRunning(
    `The app at ${new URL(appUrl).origin} is not ready (${last}): start it with npm run start:offline.`,
  );
}

/**
 * The running app and the stand-ins' Slack, from the settings in `file`: the Slack stand-in's
 * address (SLACK_API_URL), the signing secret, and the app's port unless `address` names it.
 */
export async function connectRunningApp(file: string, address?: string): Promise<DrivenApp> {
  const settings = readOfflineSettings(file);
  const { PORT, SLACK_API_URL, SLACK_SIGNING_SECRET } = settings;
  if (!SLACK_API_URL || !SLACK_SIGNING_SECRET || (!PORT && address === undefined)) {
    throw new NotRunning(`${file} is not one npm run standins wrote: start it again.`);
  }
  const appUrl = eventsUrl(address ?? `http://127.0.0.1:${PORT}`);
  await untilReady(appUrl);
  const slack = await connectSlackStandIn(new URL('/', SLACK_API_URL).href).catch(
    (error: unknown) => {
      throw new NotRunning(
        `The Slack stand-in at ${new URL('/', SLACK_API_URL).origin} cannot be reached (${String(error)}): start it with npm run standins.`,
      );
    },
  );
  const driver = createSlackDriver({
    appUrl,
    signingSecret: SLACK_SIGNING_SECRET,
    standIn: slack,
    beforeSend: () => slack.issuePending(),
  });
  return { appUrl, slack, driver, close: () => slack.close() };
}
