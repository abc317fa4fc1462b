import { createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { isRecord } from './is-record.ts';
import {
  type Actor,
  type BlockActionOptions,
  type BlockSuggestionOptions,
  blockActionPayload,
  blockSuggestionPayload,
  type Fresh,
  globalShortcutPayload,
  type MessageShortcutOptions,
  messageShortcutPayload,
  type SlashCommandFields,
  slashCommandFields,
  type ViewSubmissionOptions,
  viewSubmissionPayload,
} from './payloads.ts';
import type { FunctionExecution, SlackStandIn, StepRun } from './server.ts';
import { STAND_IN_WORKSPACE } from './workspace.ts';

export type {
  BlockActionOptions,
  BlockSuggestionOptions,
  MessageShortcutOptions,
  SlashCommandFields,
  StateValues,
  ViewSubmissionOptions,
} from './payloads.ts';

/**
 * Slack's request signature: `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{raw body}`.
 * https://api.slack.com/authentication/verifying-requests-from-slack
 */
export function signSlackRequest(
  signingSecret: string,
  rawBody: string,
  timestampSeconds: number = Math.floor(Date.now() / 1000),
): { 'x-slack-signature': string; 'x-slack-request-timestamp': string } {
  const digest = createHmac('sha256', signingSecret)
    .update(`v0:${timestampSeconds}:${rawBody}`)
    .digest('hex');
  return {
    'x-slack-signature': `v0=${digest}`,
    'x-slack-request-timestamp': String(timestampSeconds),
  };
}

// Bolt's HTTPReceiver compares the content type exactly: with a `;charset=...` suffix (what
// fetch adds for a URLSearchParams body) it would try to parse the form as JSON and answer 400.
const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

export interface SlackDriverOptions {
  /** Where the app receives Slack's requests, e.g. `http://127.0.0.1:3000/slack/events`. */
  appUrl: string;
  signingSecret: string;
  /**
   * Mints response_urls and trigger_ids that the stand-in will then honour, and acts on a
   * view_submission's answer as Slack would (awaited: a stand-in in another process, remote.ts).
   */
  standIn: Pick<SlackStandIn, 'responseUrl' | 'triggerId'> & {
    applyViewResponse?: (submittedViewId: string, response: unknown) => unknown;
    /** Starts a run of a workflow step (a stand-in in this process only). */
    functionExecution?: SlackStandIn['functionExecution'];
  };
  /**
   * Awaited before each request to the app: a stand-in in another process (remote.ts) issues
   * there the ids this request carries, before the app can use them.
   */
  beforeSend?: () => Promise<void>;
  teamId?: string;
  userId?: string;
  userName?: string;
  channelId?: string;
  channelName?: string;
  /** The slash command, `/cometchat` by default. */
  command?: string;
}

export interface HttpExchange {
  status: number;
  body: string;
  elapsedMs: number;
}

/** An options request answered: the exchange, and the options the app gave (parsed). */
export interface OptionsExchange extends HttpExchange {
  options: Record<string, unknown>[];
}

export interface CommandExchange extends HttpExchange {
  responseUrl: string;
  triggerId: string;
}

export interface SlackDriver {
  /** The fields of a fresh slash command (for HTTP or a Socket Mode `slash_commands` envelope). */
  commandFields(text: string, overrides?: Partial<SlashCommandFields>): SlashCommandFields;
  /** Posts a signed, form-encoded slash command to the app. */
  command(text: string, overrides?: Partial<SlashCommandFields>): Promise<CommandExchange>;
  /** Posts a signed `payload=<JSON>` interaction to the app. */
  interaction(payload: object): Promise<HttpExchange>;
  blockAction(options: BlockActionOptions): Record<string, unknown>;
  viewSubmission(options: ViewSubmissionOptions): Record<string, unknown>;
  messageShortcut(options: MessageShortcutOptions): Record<string, unknown>;
  globalShortcut(options: { callbackId: string }): Record<string, unknown>;
  /**
   * Posts a signed `block_suggestion` (an `external_select` asking for its options as the person
   * types) and reads the answer's options; none when the body holds none.
   */
  options(options: BlockSuggestionOptions): Promise<OptionsExchange>;
  /**
   * The body of an Events API event as Slack posts it over HTTP (and puts in an `events_api`
   * envelope's payload in Socket Mode).
   */
  eventBody(event: Record<string, unknown>): Record<string, unknown>;
  /** Posts a signed Events API event (JSON) to the app. */
  event(event: Record<string, unknown>): Promise<HttpExchange>;
  /**
   * Runs one of the app's workflow steps as Slack does: a new execution in the stand-in (its
   * `interactivity` input filled for the `interactor` who started the workflow), its
   * `function_executed` event posted to the app. Its completion is then read from the execution.
   */
  functionExecuted(
    step: StepRun,
  ): Promise<{ execution: FunctionExecution; exchange: HttpExchange }>;
  /** `app_home_opened` for the driver's user, on the Home tab. */
  homeOpened(): Record<string, unknown>;
  /**
   * `link_shared` for `urls` posted by the driver's user in its channel; `composer` for links
   * still being typed (Slack then names an unfurl id, and the channel `COMPOSER`).
   */
  linkShared(urls: readonly string[], options?: { composer?: boolean }): Record<string, unknown>;
  /** Signs `body` (form-encoded) with the driver's secret and posts it. */
  signedPost(body: string, timestampSeconds?: number): Promise<HttpExchange>;
  /** Posts `body` with exactly these headers (plus a form content type unless given). */
  raw(body: string, headers: Record<string, string>): Promise<HttpExchange>;
}

/** How long the driver waits for the app to answer one request. */
const EXCHANGE_TIMEOUT_MS = 20_000;

function actionTs(): string {
  return (Date.now() / 1000).toFixed(6);
}

/** Acts like Slack towards the app over HTTP: signed commands and interactions. */
export function createSlackDriver(options: SlackDriverOptions): SlackDriver {
  const actor: Actor = {
    teamId: options.teamId ?? STAND_IN_WORKSPACE.teamId,
    teamDomain: STAND_IN_WORKSPACE.teamDomain,
    userId: options.userId ?? 'U0OPERATOR',
    userName: options.userName ?? 'operator',
    channelId: options.channelId ?? 'C0OPS',
    channelName: options.channelName ?? 'ops',
    apiAppId: STAND_IN_WORKSPACE.appId,
    verificationToken: 'standin-verification-token',
  };
  const command = options.command ?? '/cometchat';
  const fresh = (): Fresh => ({
    triggerId: options.standIn.triggerId(),
    responseUrl: options.standIn.responseUrl(),
    actionTs: actionTs(),
  });

  const raw = async (body: string, headers: Record<string, string>): Promise<HttpExchange> => {
    await options.beforeSend?.();
    const started = performance.now();
    // Slack gives up after three seconds; a test should hear of an app that never answers
    // long before its own timeout, with the exchange named.
    const response = await fetch(options.appUrl, {
      method: 'POST',
      headers: { 'content-type': FORM_CONTENT_TYPE, ...headers },
      body,
      signal: AbortSignal.timeout(EXCHANGE_TIMEOUT_MS),
    }).catch((error: unknown) => {
      throw new Error(
        `the app did not answer ${body.slice(0, 80)}… within ${EXCHANGE_TIMEOUT_MS} ms (${String(error)})`,
      );
    });
    const text = await response.text();
    return { status: response.status, body: text, elapsedMs: performance.now() - started };
  };

  const signedPost = (body: string, timestampSeconds?: number): Promise<HttpExchange> =>
    raw(body, signSlackRequest(options.signingSecret, body, timestampSeconds));

  const commandFields = (text: string, overrides: Partial<SlashCommandFields> = {}) =>
    slashCommandFields(actor, fresh(), command, text, overrides);

  return {
    commandFields,
    async command(text, overrides) {
      const fields = commandFields(text, overrides);
      const exchange = await signedPost(new URLSearchParams({ ...fields }).toString());
      return { ...exchange, responseUrl: fields.response_url, triggerId: fields.trigger_id };
    },
    async interaction(payload) {
      const exchange = await signedPost(
        new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      );
      // Slack acts on a view_submission's response_action itself; so does the stand-in.
      const view = (payload as { type?: string; view?: { id?: string } }).view;
      if ((payload as { type?: string }).type === 'view_submission' && view?.id && exchange.body) {
        await options.standIn.applyViewResponse?.(view.id, parseJson(exchange.body));
      }
      return exchange;
    },
    blockAction: (blockAction) => blockActionPayload(actor, fresh(), blockAction),
    viewSubmission: (submission) => viewSubmissionPayload(actor, fresh(), submission),
    messageShortcut: (shortcut) => messageShortcutPayload(actor, fresh(), shortcut),
    globalShortcut: (shortcut) => globalShortcutPayload(actor, fresh(), shortcut),
    async options(suggestion) {
      const payload = blockSuggestionPayload(actor, suggestion);
      const exchange = await signedPost(
        new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      );
      const answer = exchange.body ? parseJson(exchange.body) : undefined;
      const options =
        isRecord(answer) && Array.isArray(answer.options) ? answer.options.filter(isRecord) : [];
      return { ...exchange, options };
    },
    eventBody: (event) => eventCallback(actor, event),
    async event(event) {
      const body = JSON.stringify(eventCallback(actor, event));
      return raw(body, {
        'content-type': 'application/json',
        ...signSlackRequest(options.signingSecret, body),
      });
    },
    async functionExecuted(step) {
      const start = options.standIn.functionExecution;
      if (!start) throw new Error('this stand-in cannot run workflow steps');
      const { execution, event } = start(step);
      const body = JSON.stringify(eventCallback(actor, event));
      const exchange = await raw(body, {
        'content-type': 'application/json',
        ...signSlackRequest(options.signingSecret, body),
      });
      return { execution, exchange };
    },
    homeOpened: () => ({
      type: 'app_home_opened',
      user: actor.userId,
      channel: `D${actor.userId.replace(/^[UW]/, '')}`,
      tab: 'home',
      event_ts: actionTs(),
    }),
    linkShared: (urls, { composer = false } = {}) => {
      const ts = actionTs();
      // Slack names the message (channel and ts) and, for chat.unfurl, an unfurl id and source.
      return {
        type: 'link_shared',
        user: actor.userId,
        channel: composer ? 'COMPOSER' : actor.channelId,
        message_ts: ts,
        unfurl_id: `${composer ? 'C' : 'H'}${ts.replace('.', '')}`,
        source: composer ? 'composer' : 'conversations_history',
        is_bot_user_member: true,
        links: urls.map((url) => ({ url, domain: new URL(url).hostname })),
        event_ts: ts,
      };
    },
    signedPost,
    raw,
  };
}

let eventCount = 0;

/** An Events API `event_callback` around `event`, as Slack sends it. */
function eventCallback(actor: Actor, event: Record<string, unknown>): Record<string, unknown> {
  eventCount += 1;
  return {
    token: actor.verificationToken,
    team_id: actor.teamId,
    api_app_id: actor.apiAppId,
    event: { event_ts: actionTs(), ...event },
    type: 'event_callback',
    event_id: `Ev${String(eventCount).padStart(9, '0')}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: null,
        team_id: actor.teamId,
        user_id: STAND_IN_WORKSPACE.botUserId,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
