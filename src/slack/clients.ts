import type { Logger as BoltLogger } from '@slack/bolt';
import { LogLevel, type WebClient, type WebClientOptions } from '@slack/web-api';
import { CountedWebClient } from '../observe/counted-web-client.ts';
import type { Metrics } from '../observe/metrics.ts';
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

export interface SlackClientSettings {
  botToken: string;
  apiUrl?: string | undefined;
  logger: BoltLogger;
  logLevel: LogLevel;
}

export interface SlackClients {
  /** The shared options, a fresh object each time (the Socket Mode client fills in defaults). */
  options(): WebClientOptions;
  /** The app's own client, counted (Bolt's, app.client, only checks the token at start). */
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

export function createSlackClients(settings: SlackClientSettings, metrics: Metrics): SlackClients {
  const options = (): WebClientOptions => ({
    slackApiUrl: `${settings.apiUrl ?? SLACK_API_URL}/`,
    retryConfig: { ...SLACK_RETRY },
    timeout: SLACK_TIMEOUT_MS,
  });
  const counted = (changes: WebClientOptions = {}) =>
    new CountedWebClient(
      settings.botToken,
      { ...options(), logger: settings.logger, logLevel: settings.logLevel, ...changes },
      metrics,
    );
  const quick = (timeout: number) =>
    counted({ retryConfig: { retries: 0 }, timeout, rejectRateLimitedCalls: true });
  const client = counted();
  let team: Promise<string | undefined> | undefined;
  return {
    options,
    client,
    quick,
    views: createViews({
      triggered: quick(TRIGGER_LIFE_MS),
      // A person waits on a modal: a rate limit fails at once (the sentence says so) instead
      // of holding the modal for Slack's Retry-After.
      client: counted({ rejectRateLimitedCalls: true }),
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

/** Bolt's and the Web API client's level for LOG_LEVEL. */
export function boltLevel(level: string): LogLevel {
  if (level === 'debug' || level === 'trace') return LogLevel.DEBUG;
  if (level === 'info') return LogLevel.INFO;
  if (level === 'warn') return LogLevel.WARN;
  return LogLevel.ERROR;
}
