import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import { parse } from 'node:querystring';
import { type BufferedIncomingMessage, HTTPModuleFunctions, type HTTPReceiver } from '@slack/bolt';
import type { Logger } from 'pino';
import { type BodySource, type Shape, shapeOf } from './payload-shapes.ts';

// Bolt reads a request's whole body (up to its limit) before it checks the signature, so anyone
// who can reach the listener could make it hold megabytes per request without the signing
// secret. What can be judged from the headers alone is judged here, before a byte of the body
// is read: a request to the Slack endpoint without a signature, with a timestamp missing, not a
// number or more than five minutes from our clock either way, or announcing a body larger than
// any Slack sends, is refused at once. Then the body is read (within MAX_BODY_BYTES), one no
// Slack request has is refused, and Bolt is handed the rest and checks the signature itself.

/** How far the request's timestamp may be from our clock, either way (Slack's guidance). */
const MAX_SKEW_SECONDS = 5 * 60;

/**
 * The largest body accepted. Slack's largest payloads are view submissions, which echo the
 * whole view with its state; the permission editor's are the app's largest, and every one of
 * them fits four times over (test/integration/request-gate.test.ts measures them). A quarter of
 * a megabyte leaves that room while bounding what a refused request costs.
 */
export const MAX_BODY_BYTES = 256 * 1024;

/**
 * The limits of every public listener (Slack's over HTTP; the health, readiness and metrics
 * routes' own, which in Socket Mode serves CometChat's webhooks too), against slow or idle
 * connections: headers within 5 s, the whole request within 10 s (Slack and CometChat send a
 * few kilobytes at once), an idle kept-alive connection closed after 5 s, checked every second
 * instead of Node's default 30, and at most MAX_CONNECTIONS open (holdToLimits). Bodies are
 * bounded by the routes that read them: MAX_BODY_BYTES here, the webhook route's own.
 */
export const SERVER_OPTIONS: ServerOptions = {
  headersTimeout: 5_000,
  requestTimeout: 10_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 1_000,
};
export const MAX_CONNECTIONS = 1_000;

/** A listener made with SERVER_OPTIONS, held to the connection cap too: past it, one is closed. */
export function holdToLimits<S extends Server>(server: S, maxConnections = MAX_CONNECTIONS): S {
  server.maxConnections = maxConnections;
  return server;
}

export type Refusal = { status: 401 | 413; reason: string } | undefined;

/** Whether a request to the Slack endpoint may be read, judged from its headers alone. */
export function refusalOf(
  headers: IncomingMessage['headers'],
  nowSeconds: number,
  maxBodyBytes = MAX_BODY_BYTES,
): Refusal {
  const length = Number(headers['content-length']);
  if (Number.isFinite(length) && length > maxBodyBytes) {
    return { status: 413, reason: 'body larger than any Slack sends' };
  }
  if (!headers['x-slack-signature']) return { status: 401, reason: 'no signature' };
  const header = headers['x-slack-request-timestamp'];
  const sent = Number(Array.isArray(header) ? header[0] : header);
  if (!header || !Number.isFinite(sent)) return { status: 401, reason: 'no timestamp' };
  const skew = sent - nowSeconds;
  if (skew > MAX_SKEW_SECONDS) return { status: 401, reason: 'dated in the future' };
  if (skew < -MAX_SKEW_SECONDS) return { status: 401, reason: 'stale timestamp' };
  return undefined;
}

/** The form content type as Bolt compares it: exactly, and any other is read as JSON. */
const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

/**
 * Whether a body is one Slack sends, read as Bolt will read it (its own parser: a form's
 * fields, a form's `payload`, or JSON) and taken for the kind Bolt will route it as
 * (payload-shapes.ts). Anything else fails inside Bolt or the app with no answer, so it is
 * refused here (400) before Bolt parses it.
 */
export function bodyShape(req: BufferedIncomingMessage): Shape {
  const source = sourceOf(req);
  let body: unknown;
  try {
    body = HTTPModuleFunctions.parseHTTPRequestBody(req);
  } catch {
    return { kind: undefined, problem: 'a body that does not parse' };
  }
  return shapeOf(body, source);
}

function sourceOf(req: BufferedIncomingMessage): BodySource {
  if (req.headers['content-type'] !== FORM_CONTENT_TYPE) return 'json';
  return typeof parse(req.rawBody.toString()).payload === 'string' ? 'payload' : 'form';
}

/**
 * Puts refusalOf in front of the receiver's listener, for requests to `endpoint` only; then
 * reads the body (within MAX_BODY_BYTES) and refuses one no Slack request has. Bolt is handed the
 * body already read (`rawBody`, which its receiver takes as it is) and checks the signature.
 */
export function gateRequests(
  receiver: HTTPReceiver,
  options: {
    endpoint: string;
    logger: Logger;
    now?: () => number;
    /** Told of each request to the endpoint as it arrives, before anything is read. */
    arrived?: (req: IncomingMessage, res: ServerResponse) => void;
  },
): void {
  const now = options.now ?? Date.now;
  const next = receiver.requestListener;
  const refuse = (
    res: ServerResponse,
    refusal: NonNullable<Refusal> | { status: 400; reason: string },
  ) => {
    options.logger.warn({ status: refusal.status }, `request refused: ${refusal.reason}`);
    // The connection closes after the answer instead of draining a body no one will read.
    res.writeHead(refusal.status, { connection: 'close' }).end();
  };
  const handOn = (req: BufferedIncomingMessage, res: ServerResponse) => {
    try {
      next(req, res);
    } catch (error) {
      // Bolt throws for what it will not route; out here nothing else would answer.
      options.logger.error({ err: error }, 'request not routed');
      res.writeHead(500, { connection: 'close' }).end();
    }
  };
  receiver.requestListener = (req, res) => {
    // Only what Bolt serves at the endpoint (a POST, by the path as Bolt reads it) is gated;
    // anything else goes to Bolt as it came, for its own answer.
    if (req.method !== 'POST' || pathOf(req.url) !== options.endpoint) return next(req, res);
    options.arrived?.(req, res);
    const refusal = refusalOf(req.headers, now() / 1000);
    // Slack's certificate check comes unsigned: a short form Bolt answers itself.
    const mayBeSslCheck =
      refusal?.reason === 'no signature' && !req.headers['x-slack-request-timestamp'];
    if (refusal && !mayBeSslCheck) return refuse(res, refusal);
    readBody(req, mayBeSslCheck ? SSL_CHECK_BYTES : MAX_BODY_BYTES).then(
      (raw) => {
        // Bolt takes the body already read as it is (`rawBody`).
        const read = raw === undefined ? undefined : Object.assign(req, { rawBody: raw });
        if (mayBeSslCheck) {
          if (read !== undefined && isSslCheck(read)) return handOn(read, res);
          return refuse(res, { status: 401, reason: 'no signature' });
        }
        if (read === undefined)
          return refuse(res, { status: 413, reason: 'body larger than any Slack sends' });
        const { problem } = bodyShape(read);
        if (problem) return refuse(res, { status: 400, reason: problem });
        handOn(read, res);
      },
      () => req.destroy(),
    );
  };
}

/** The largest certificate check read: `ssl_check=1&token=...` is a few dozen bytes. */
const SSL_CHECK_BYTES = 1024;

/** Whether a body is Slack's certificate check, which carries no signature. */
export function isSslCheck(req: BufferedIncomingMessage): boolean {
  const { kind, problem } = bodyShape(req);
  return kind === 'ssl_check' && problem === undefined;
}

/** A request's path as Bolt's receiver reads it: an absolute-form target counts by its path. */
function pathOf(url: string | undefined): string {
  try {
    return new URL(url ?? '/', 'http://localhost').pathname;
  } catch {
    return url ?? '';
  }
}

/**
 * The whole body, or undefined as soon as it passes `limit` bytes: the rest is not read (the
 * refusal closes the connection). Also what CometChat's webhooks are read with.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData).off('end', onEnd).pause();
      resolve(undefined);
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    req.on('data', onData).on('end', onEnd).once('error', reject);
  });
}
