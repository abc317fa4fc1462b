import {
  type ModerationTrigger,
  type ModerationWebhookOptions,
  moderationData,
} from './moderation-payloads.ts';
import type { SandboxState } from './state.ts';
import {
  type CallEndedData,
  type CallMessageData,
  callEndedData,
  callMessageData,
  type EndedStatus,
  endCallInState,
  endedFlow,
  envelopeType,
  type RecordingGeneratedData,
  type RingingTrigger,
  recordingGeneratedData,
  type TranscriptionGeneratedData,
  transcriptionGeneratedData,
} from './webhook-payloads.ts';

// The webhook CometChat sends to an app's server (live-api-notes.md, "Webhooks"): one URL, set
// up like the dashboard does it, optional Basic authentication (there is no signature), a list
// of triggers, and the envelope `{trigger, data, appId, region, webhook}` POSTed as JSON. The
// stand-in sends when told to (a test, `endCall`, the manual sandbox's schedule); it never
// retries, like a webhook whose `retryOnFailure` is off, the default.

export interface WebhookConfig {
  /** Where to POST; http is allowed here (the live service wants https). */
  url: string;
  /** Basic authentication when both are given: `Authorization: Basic base64(user:password)`. */
  username?: string;
  password?: string;
  /** Only these triggers are sent; every trigger when omitted. */
  triggers?: readonly string[];
  /** The envelope's `webhook`; default 'sandbox-webhook'. */
  id?: string;
  /** How long to wait for the receiver's answer; default 10,000 ms. */
  timeoutMs?: number;
}

/** What the receiver answered: any status (a 401 or a 500 is an answer too), the body as text. */
export interface WebhookAnswer {
  status: number;
  body: string;
}

export interface WebhookEnvelope {
  trigger: string;
  /** `call` or `meet` for the call-session triggers, beside `trigger` as documented. */
  type?: 'call' | 'meet';
  data: Record<string, unknown>;
  appId: string;
  region: string;
  webhook: string;
}

/** One tick of a schedule: what was sent, and the answer or why there is none. */
export interface ScheduledDelivery {
  trigger: string;
  sessionId: string;
  /** The payload, when it could be built. */
  data?: Record<string, unknown>;
  /** Undefined when nothing was sent (no webhook, or the trigger is filtered out). */
  answer?: WebhookAnswer;
  error?: Error;
}

export interface WebhookScheduleOptions {
  everySeconds: number;
  /** The calls to cycle through; default the seed's named calls that have ended. */
  sessionIds?: readonly string[];
  /** Told about every tick, sent or not. */
  onDelivery?: (delivery: ScheduledDelivery) => void;
}

export interface SandboxWebhooks {
  /** Sets the app's one webhook, replacing any earlier one. Throws on a setting that cannot work. */
  configure(config: WebhookConfig): void;
  /** The current setting (a copy), undefined when none. */
  readonly config: Readonly<WebhookConfig> | undefined;
  /** No webhook, no schedule: what `reset()` does. */
  clear(): void;
  /**
   * POSTs the envelope. Resolves with the receiver's answer whatever its status; resolves
   * undefined when nothing is sent (no webhook, or a trigger the setting leaves out); throws
   * only when the receiver cannot be reached or does not answer in time.
   */
  send(trigger: string, data: Record<string, unknown>): Promise<WebhookAnswer | undefined>;
  /** `call_ended`'s data of an answered call; `meeting_ended`'s of a session. */
  callEndedData(sessionId: string): CallEndedData;
  /** A ringing trigger's data (`call_initiated`, `call_unanswered`, ...): the call's message. */
  callMessageData(sessionId: string, trigger: RingingTrigger): CallMessageData;
  /** What CometChat sends when the seeded call ends: the trigger its flow and status give. */
  endedFlow(sessionId: string): { trigger: string; data: Record<string, unknown> };
  recordingGeneratedData(sessionId: string, rid?: string): RecordingGeneratedData;
  transcriptionGeneratedData(sessionId: string, tid?: string): TranscriptionGeneratedData;
  /**
   * A moderation trigger's data for a seeded message, flagged, blocked or reviewed
   * (moderation-payloads.ts; README.md, "Moderation webhooks"). The state is left as it is.
   */
  moderationData(
    trigger: ModerationTrigger,
    messageId: string,
    options?: ModerationWebhookOptions,
  ): Record<string, unknown>;
  /** Sends that trigger with that data, as `send` does. */
  sendModeration(
    trigger: ModerationTrigger,
    messageId: string,
    options?: ModerationWebhookOptions,
  ): Promise<WebhookAnswer | undefined>;
  /**
   * Ends a seeded call in the state (status, default 'ended'; `endedAt`, default now) and sends
   * what CometChat sends then: `call_ended` for an answered call, `call_unanswered`,
   * `call_rejected`, `call_cancelled` or `call_busy` for the others, `meeting_ended` for a session.
   */
  endCall(
    sessionId: string,
    outcome?: { status?: EndedStatus; endedAt?: number },
  ): Promise<WebhookAnswer | undefined>;
  /** Sends the end of a seeded call every N seconds (its flow's trigger), cycling; returns the stop. */
  schedule(options: WebhookScheduleOptions): () => void;
}

export interface WebhookSenderOptions {
  state: SandboxState;
  appId: string;
  region: string;
  /** The seed's named calls: what a schedule cycles through by default. */
  namedSessionIds: readonly string[];
  /** Aborted when the sandbox closes: deliveries in flight stop, schedules end. */
  stop: AbortSignal;
}

const DEFAULT_WEBHOOK_ID = 'sandbox-webhook';
const DEFAULT_TIMEOUT_MS = 10_000;

function checkConfig(config: WebhookConfig): WebhookConfig {
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    throw new TypeError(`webhooks: not a URL: ${JSON.stringify(config.url)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError('webhooks: the URL must be http or https');
  }
  if (url.username !== '' || url.password !== '') {
    throw new TypeError('webhooks: give username and password apart, not inside the URL');
  }
  if ((config.username === undefined) !== (config.password === undefined)) {
    throw new TypeError('webhooks: Basic authentication needs both username and password');
  }
  // RFC 7617: the user-id cannot hold a colon, the separator.
  if (config.username?.includes(':')) {
    throw new TypeError('webhooks: a Basic authentication username cannot contain ":"');
  }
  if (config.triggers?.some((t) => typeof t !== 'string' || t === '')) {
    throw new TypeError('webhooks: triggers must be non-empty strings');
  }
  const timeout = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(Number.isFinite(timeout) && timeout > 0)) {
    throw new TypeError('webhooks: timeoutMs must be a positive number');
  }
  return {
    ...config,
    ...(config.triggers === undefined ? {} : { triggers: [...config.triggers] }),
  };
}

export function createWebhookSender(options: WebhookSenderOptions): SandboxWebhooks {
  const { state } = options;
  let config: WebhookConfig | undefined;
  const schedules = new Set<() => void>();

  async function send(trigger: string, data: Record<string, unknown>) {
    const current = config;
    if (current === undefined) return undefined;
    if (current.triggers !== undefined && !current.triggers.includes(trigger)) return undefined;
    const type = envelopeType(trigger);
    const envelope: WebhookEnvelope = {
      trigger,
      ...(type ? { type } : {}),
      data,
      appId: options.appId,
      region: options.region,
      webhook: current.id ?? DEFAULT_WEBHOOK_ID,
    };
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (current.username !== undefined && current.password !== undefined) {
      const credentials = Buffer.from(`${current.username}:${current.password}`, 'utf8');
      headers.authorization = `Basic ${credentials.toString('base64')}`;
    }
    const timeout = AbortSignal.timeout(current.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    try {
      const response = await fetch(current.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(envelope),
        signal: AbortSignal.any([timeout, options.stop]),
        // A redirect is the receiver's answer like any other: the webhook posts where it is set.
        redirect: 'manual',
      });
      return { status: response.status, body: await response.text() };
    } catch (error) {
      const reason = error instanceof Error ? (error.cause ?? error) : error;
      const text = reason instanceof Error ? reason.message : String(reason);
      throw new Error(`webhooks: could not deliver ${trigger} to ${current.url}: ${text}`, {
        cause: error,
      });
    }
  }

  function stopSchedules() {
    for (const stop of schedules) stop();
  }
  options.stop.addEventListener('abort', stopSchedules, { once: true });

  return {
    configure(next) {
      config = checkConfig(next);
    },
    get config() {
      return config === undefined ? undefined : { ...config };
    },
    clear() {
      config = undefined;
      stopSchedules();
    },
    send,
    callEndedData: (sessionId) => callEndedData(state, sessionId),
    callMessageData: (sessionId, trigger) => callMessageData(state, sessionId, trigger),
    endedFlow: (sessionId) => endedFlow(state, sessionId),
    recordingGeneratedData: (sessionId, rid) => recordingGeneratedData(state, sessionId, rid),
    transcriptionGeneratedData: (sessionId, tid) =>
      transcriptionGeneratedData(state, sessionId, tid),
    moderationData: (trigger, messageId, moderation) =>
      moderationData(state, options.appId, trigger, messageId, moderation),
    sendModeration: (trigger, messageId, moderation) =>
      send(trigger, moderationData(state, options.appId, trigger, messageId, moderation)),
    async endCall(sessionId, outcome = {}) {
      endCallInState(state, sessionId, {
        status: outcome.status ?? 'ended',
        endedAt: outcome.endedAt ?? Math.floor(Date.now() / 1000),
      });
      const { trigger, data } = endedFlow(state, sessionId);
      return send(trigger, data);
    },
    schedule({ everySeconds, sessionIds, onDelivery }) {
      if (!(Number.isInteger(everySeconds) && everySeconds > 0)) {
        throw new TypeError('webhooks: everySeconds must be a positive integer');
      }
      const cycle =
        sessionIds ??
        options.namedSessionIds.filter(
          (id) => typeof state.calls.get(id)?.record.endedAt === 'number',
        );
      if (cycle.length === 0) throw new Error('webhooks: no ended call to send');
      let next = 0;
      const tick = () => {
        const sessionId = cycle[next % cycle.length] ?? '';
        next += 1;
        let flow: { trigger: string; data: Record<string, unknown> };
        try {
          flow = endedFlow(state, sessionId);
        } catch (error) {
          const failed = error instanceof Error ? error : new Error(String(error));
          onDelivery?.({ trigger: 'call_ended', sessionId, error: failed });
          return;
        }
        const { trigger, data } = flow;
        const report = (delivery: Omit<ScheduledDelivery, 'trigger' | 'sessionId'>) =>
          onDelivery?.({ trigger, sessionId, ...delivery });
        send(trigger, data).then(
          (answer) => report(answer === undefined ? { data } : { data, answer }),
          (error: unknown) =>
            report({ data, error: error instanceof Error ? error : new Error(String(error)) }),
        );
      };
      const timer = setInterval(tick, everySeconds * 1000);
      // The sandbox's listeners keep the process alive; a forgotten schedule should not.
      timer.unref();
      const stop = () => {
        clearInterval(timer);
        schedules.delete(stop);
      };
      schedules.add(stop);
      return stop;
    },
  };
}
