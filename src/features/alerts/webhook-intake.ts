import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Apps, CometChatApp } from '../../apps/apps.ts';
import type { WebhookOutcome } from '../../observe/metrics.ts';
import { readBody } from '../../slack/request-gate.ts';
import type { Store, WebhookEvent } from '../../store/store.ts';
import {
  isModerationTrigger,
  MODERATION_TRIGGERS,
  type ModerationFacts,
  type ModerationTrigger,
  moderationDeliveryId,
  moderationFacts,
} from './moderation-event.ts';
import { deliveryId, EnvelopeSchema, isAlertTrigger } from './webhook-event.ts';

// `POST /cometchat/webhooks/<app>`: where CometChat's webhooks for one app arrive. Everything a
// delivery can be refused for is decided before anything is kept (the app, its password, the
// size, the shape), and the answer is 200 as soon as the event is stored: posting it, which asks
// CometChat and Slack, happens after (alert-delivery.ts), and a stop before then loses nothing
// (the sweep posts what is left). The same delivery twice is kept once, across replicas.

export const WEBHOOK_PATH_PREFIX = '/cometchat/webhooks/';
/** The route as Bolt's HTTP receiver takes it (the app's name is read from the path). */
export const WEBHOOK_ROUTE_PATH = `${WEBHOOK_PATH_PREFIX}:app`;
/** CometChat's payloads are small; anything near this is not one of them. */
export const MAX_WEBHOOK_BYTES = 1024 * 1024;
/**
 * How long a delivery's id is remembered: far past CometChat's retries (minutes) and a proxy's,
 * and short enough that a busy app's claims do not pile up in the store.
 */
export const DELIVERY_CLAIM_SECONDS = 24 * 60 * 60;

export interface IntakeDeps {
  apps: Pick<Apps, 'byName'>;
  store: Pick<Store, 'keepWebhookEvent'>;
  count: (app: string, outcome: WebhookOutcome) => void;
  log: Logger;
  now: () => number;
  /** Called once an event is stored and answered: posts it (not awaited). */
  stored: (event: WebhookEvent) => void;
}

/** An answer with a short JSON body; `extra` headers beside its content type. */
function answer(res: ServerResponse, status: number, body: object, extra = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...extra });
  res.end(JSON.stringify(body));
}

/** The handler of the webhook route, for Bolt's HTTP receiver and the Socket Mode listener. */
export function createWebhookIntake(deps: IntakeDeps) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    intake(deps, req, res).catch((error: unknown) => {
      deps.log.error({ err: error }, 'webhook: not handled');
      answer(res, 500, { error: 'not handled' });
    });
  };
}

async function intake(deps: IntakeDeps, req: IncomingMessage, res: ServerResponse) {
  const refuse = (status: number, error: string, app = '-', headers = {}) => {
    deps.count(app, 'refused');
    deps.log.warn({ status, app, reason: error }, 'webhook refused');
    // The rest of a refused body is not read: the connection closes after the answer.
    answer(res, status, { error }, { connection: 'close', ...headers });
  };
  if (req.method !== 'POST') return refuse(405, 'POST only', '-', { allow: 'POST' });
  const app = appOf(deps.apps, req.url);
  // An app that takes no webhooks is answered as a wrong password is, with the same work done:
  // the answers do not tell which app names exist.
  if (!passwordMatches(req.headers.authorization, app?.webhook ?? NO_WEBHOOK) || !app?.webhook) {
    return refuse(401, 'wrong or missing credentials', app?.webhook ? app.name : '-', {
      'www-authenticate': 'Basic realm="cometchat-webhooks"',
    });
  }
  // A declared length past the limit is refused at once; an undeclared one as it streams in.
  const declared = Number(req.headers['content-length'] ?? 0);
  const body = declared > MAX_WEBHOOK_BYTES ? undefined : await readBody(req, MAX_WEBHOOK_BYTES);
  if (!body) return refuse(413, 'body over 1 MB', app.name);
  const json = parseJson(body);
  // Such a body can never be kept (storing it would overflow the stack): refused, not 503, so
  // that CometChat does not retry what can never succeed.
  if (nestedDeeperThan(json, MAX_WEBHOOK_DEPTH)) return refuse(400, 'nested too deep', app.name);
  const envelope = EnvelopeSchema.safeParse(json);
  if (!envelope.success) return refuse(400, 'not a CometChat webhook', app.name);
  if (!sameApp(app, envelope.data.appId)) {
    // Another app's dashboard points its webhook here: its calls would be read from this app.
    const named = envelope.data.appId ?? 'no app';
    return refuse(400, `for CometChat app ${named}, not this route's`, app.name);
  }
  const { trigger } = envelope.data;
  if (isModerationTrigger(trigger)) {
    const facts = moderationFacts(trigger, envelope.data.data);
    if (!facts) return refuse(400, `not a ${trigger} of the documented shape`, app.name);
    return keepModeration(deps, res, { app: app.name, trigger, facts });
  }
  if (!isAlertTrigger(trigger)) {
    deps.count(app.name, 'dropped');
    return answer(res, 200, { ok: true, kept: false });
  }
  await keep(deps, res, {
    id: deliveryId(app.name, envelope.data),
    app: app.name,
    trigger,
    receivedAt: deps.now(),
    body: envelope.data,
  });
}

/**
 * A moderation event: kept as its facts alone (no text reaches the store), once, by the id its
 * message gives it; `moderation_engine_approved` (every message let through) is read and dropped.
 */
function keepModeration(
  deps: IntakeDeps,
  res: ServerResponse,
  input: { app: string; trigger: ModerationTrigger; facts: ModerationFacts },
) {
  const { app, trigger, facts } = input;
  if (MODERATION_TRIGGERS[trigger] === undefined) {
    deps.count(app, 'dropped');
    return answer(res, 200, { ok: true, kept: false });
  }
  const id = moderationDeliveryId(app, trigger, facts);
  return keep(deps, res, { id, app, trigger, receivedAt: deps.now(), body: facts });
}

/** Keeps the event once (its claim and the event in one step), answers, then hands it on. */
async function keep(deps: IntakeDeps, res: ServerResponse, event: WebhookEvent) {
  let kept: boolean;
  try {
    kept = await deps.store.keepWebhookEvent(event, DELIVERY_CLAIM_SECONDS);
  } catch (error) {
    // Nothing kept, not even the claim: CometChat's retry (or the next delivery) is taken.
    deps.log.error({ err: error, app: event.app }, 'webhook: event not stored');
    return answer(res, 503, { error: 'not stored; retry' });
  }
  if (!kept) {
    deps.count(event.app, 'deduplicated');
    return answer(res, 200, { ok: true, kept: false });
  }
  deps.count(event.app, 'received');
  answer(res, 200, { ok: true, kept: true });
  deps.stored(event);
}

/**
 * Whether a delivery naming the CometChat app `named` belongs to `app`'s route. Every webhook
 * CometChat sends names its app; one that names none is not taken. An app configured without
 * its id (its addresses set by hand) cannot tell, and takes any.
 */
function sameApp(app: CometChatApp, named: string | undefined): boolean {
  return named !== undefined && (app.appId === undefined || named === app.appId);
}

/** CometChat's payloads nest a few levels (a message's entities: six); far past is not one. */
export const MAX_WEBHOOK_DEPTH = 64;

/** Whether a parsed JSON value nests deeper than `max` arrays or objects; without recursion. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() ?? [undefined, 0];
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= max) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

/** What an app without webhooks is compared against: nothing matches it. */
const NO_WEBHOOK = { user: '', password: '\u0000' };

/** The app a path names: `/cometchat/webhooks/<app>`, nothing after it. */
function appOf(apps: Pick<Apps, 'byName'>, url: string | undefined): CometChatApp | undefined {
  const path = (url ?? '').split('?')[0] ?? '';
  if (!path.startsWith(WEBHOOK_PATH_PREFIX)) return undefined;
  const name = path.slice(WEBHOOK_PATH_PREFIX.length);
  return /^[a-z][a-z0-9-]{0,31}$/.test(name) ? apps.byName(name) : undefined;
}

/**
 * Whether `Authorization: Basic …` holds the app's user and password. Both are compared as
 * digests in constant time, so neither their length nor where they differ shows in the timing.
 */
export function passwordMatches(
  header: string | undefined,
  expected: { user: string; password: string },
): boolean {
  const match = /^Basic ([A-Za-z0-9+/=]{1,1024})$/.exec(header ?? '');
  const given = match?.[1] ? Buffer.from(match[1], 'base64').toString('utf8') : '';
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(`${expected.user}:${expected.password}`));
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}
