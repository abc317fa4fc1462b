import type { Logger as BoltLogger } from '@slack/bolt';
import { type LogLevel, WebClient, type WebClientOptions } from '@slack/web-api';
import { createViews, type Views } from './views.ts';

// The app's Web API clients: one set of options (address, timeout, a few quick retries), and
// clients that differ from it only where a person or a deadline waits.

/** Slack's Web API, for every client and the views calls alike, unless SLACK_API_URL is set. */
const SLACK_API_URL = 'https://slack.com/api';
/** A trigger_id is good for this long after the click (views.open and views.push spend one). */
const TRIGGER_LIFE_MS = 3_000;
/** How long one Web API call may take, the views calls included. */
const SLACK_TIMEOUT_MS = 10_000;
/**
 * Replies are interactive: a few quick retries, not the Web API client's default of ten spread
 * over half an hour. The views calls retry the same way.
 */
const SLACK_RETRY = { retries: 2, minTimeout: 200, maxTimeout: 1_000 };
/**
 * The longest one call through the app's client takes before it answers or gives up: each try
 * within its timeout, and the waits between them (a 429's Retry-After aside).
 */
export const SLACK_CALL_LONGEST_MS =
  (SLACK_RETRY.retries + 1) * SLACK_TIMEOUT_MS + SLACK_RETRY.retries * SLACK_RETRY.maxTimeout;

export interface SlackClientSettings {
  botToken: string;
  apiUrl?: string | undefined;
  logger: BoltLogger;
  logLevel: LogLevel;
}

export interface SlackClients {
  /** The Web API's address, ending in a slash: Slack's, or SLACK_API_URL's. */
  apiUrl: string;
  /** The shared options, a fresh object each time (the Socket Mode client fills in defaults). */
  options(): WebClientOptions;
  /** The app's own client (Bolt's, app.client, only checks the token at start). */
  client: WebClient;
  /**
   * A client that neither waits out a 429 nor retries, within `timeoutMs`: for access checks
   * (some run before an acknowledgement) and audit posts. A client waiting on Retry-After
   * pauses every call it makes meanwhile.
   */
  quick(timeoutMs: number): WebClient;
  views: Views;
  /** The team the bot token belongs to, asked once; a failed answer is asked again. */
  installedTeam(): Promise<string | undefined>;
}

/**
 * Makes each of the app's Web API clients from the shared options: a plain WebClient unless the
 * caller passes one of its own (the composition root's counts every failed call).
 */
export type WebClientFactory = (token: string, options: WebClientOptions) => WebClient;

export function createSlackClients(
  settings: SlackClientSettings,
  newClient: WebClientFactory = (token, options) => new WebClient(token, options),
): SlackClients {
  const apiUrl = `${settings.apiUrl ?? SLACK_API_URL}/`;
  const options = (): WebClientOptions => ({
    slackApiUrl: apiUrl,
    retryConfig: { ...SLACK_RETRY },
    timeout: SLACK_TIMEOUT_MS,
  });
  const made = (changes: WebClientOptions = {}) =>
    newClient(settings.botToken, {
      ...options(),
      logger: settings.logger,
      logLevel: settings.logLevel,
      ...changes,
    });
  const quick = (timeout: number) =>
    made({ retryConfig: { retries: 0 }, timeout, rejectRateLimitedCalls: true });
  const client = made();
  let team: Promise<string | undefined> | undefined;
  return {
    apiUrl,
    options,
    client,
    quick,
    views: createViews({
      triggered: quick(TRIGGER_LIFE_MS),
      // A person waits on a modal: a rate limit fails at once (the sentence says so) instead
      // of holding the modal for Slack's Retry-After.
      client: made({ rejectRateLimitedCalls: true }),
    }),
    installedTeam() {
      if (team === undefined) {
        team = client.auth.test().then((identity) => identity.team_id);
        team.catch(() => {
          team = undefined;
        });
      }
      return team;
    },
  };
}
