import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { attributeOf, type OtlpSpan, startCollector } from '../observe/otlp-collector.ts';
import { commandText, startHarness } from './harness.ts';

// Traces, opt-in: with an OTLP endpoint, each Slack request is a span with the CometChat and
// Slack calls made for it under it, exported over OTLP/HTTP (JSON) to a collector stood in for
// here.

const COLLECTOR_KEY = 'collector-key-5b9e1f';
/** OTLP's span kinds (SPAN_KIND_SERVER, SPAN_KIND_CLIENT). */
const SERVER = 2;
const CLIENT = 3;

function attribute(span: OtlpSpan, key: string): unknown {
  return attributeOf(span.attributes, key);
}

describe('traces', () => {
  const cleanup: (() => Promise<void>)[] = [];
  // OpenTelemetry's other settings are read from the process's environment, as its SDK reads
  // them: one left in the shell that runs the tests must not sample these spans away.
  beforeEach(() => {
    for (const name of [
      'OTEL_SDK_DISABLED',
      'OTEL_SERVICE_NAME',
      'OTEL_RESOURCE_ATTRIBUTES',
      'OTEL_TRACES_SAMPLER',
      'OTEL_TRACES_SAMPLER_ARG',
    ]) {
      vi.stubEnv(name, '');
    }
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  /** The app exporting to a collector of its own; `stop` sends the spans still buffered. */
  async function startTraced(env: Record<string, string>) {
    const collector = await startCollector();
    cleanup.push(collector.close);
    const h = await startHarness({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, ...env } });
    let stopped: Promise<void> | undefined;
    const stop = () => {
      stopped ??= h.stop();
      return stopped;
    };
    cleanup.push(stop);
    return { collector, h, stop };
  }

  it('makes each Slack request a span, with its CometChat and Slack calls under it', async () => {
    const { collector, h, stop } = await startTraced({
      // A collector's key, percent-encoded as OpenTelemetry writes header values.
      OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${COLLECTOR_KEY}`,
    });
    expect(await commandText(h, 'roles')).toContain('CometChat roles');
    const mark = h.slack.calls.length;
    await h.driver.command('perms default');
    await h.slack.nextCall('views.open', mark);
    // A stop sends the spans still buffered.
    await stop();

    const named = (name: string) => collector.spans.filter((s) => s.name === name);
    const [roles] = named('slack command roles');
    const [listRoles] = named('CometChat listRoles').filter(
      (s) => s.parentSpanId === roles?.spanId,
    );
    expect(roles).toMatchObject({ kind: SERVER });
    expect(attribute(roles as OtlpSpan, 'cometchat_ops.ref')).toMatch(/^\w+/);
    expect(listRoles).toMatchObject({ kind: CLIENT, traceId: roles?.traceId });
    // ky's request, under the operation: its HTTP span.
    expect(collector.spans.some((s) => s.parentSpanId === listRoles?.spanId)).toBe(true);
    // The reply went to the command's response_url, with fetch: a span of the same request.
    expect(
      collector.spans.some((s) => s.parentSpanId === roles?.spanId && s.name.startsWith('POST')),
    ).toBe(true);

    const [perms] = named('slack command perms');
    const [viewsOpen] = named('Slack views.open');
    expect(viewsOpen).toMatchObject({
      kind: CLIENT,
      traceId: perms?.traceId,
      parentSpanId: perms?.spanId,
    });
    expect(JSON.stringify(collector.resources)).toContain('cometchat-slack-ops');
    // The request's log lines name its trace and span (ECS trace.id, span.id), to go from one to
    // the other.
    const rolesRef = attribute(roles as OtlpSpan, 'cometchat_ops.ref');
    const rolesLines = h.logs.records().filter((r) => r.cometchat_ops.ref === rolesRef);
    expect(rolesLines.length).toBeGreaterThan(0);
    expect(rolesLines.every((r) => (r.trace as { id?: string })?.id === roles?.traceId)).toBe(true);
    const spanIds = new Set(collector.spans.map((s) => s.spanId));
    expect(rolesLines.every((r) => spanIds.has((r.span as { id: string }).id))).toBe(true);
    // Nothing secret travels with the spans: no credential, no response_url (a capability) and
    // no CometChat path (it names users and calls); only addresses' origins.
    const exported = JSON.stringify(collector.spans);
    for (const secret of h.config.secrets) expect(exported).not.toContain(secret);
    // The collector's key went with every export, and nowhere into the logs.
    expect(collector.authorizations.length).toBeGreaterThan(0);
    expect(new Set(collector.authorizations)).toEqual(new Set([`Bearer ${COLLECTOR_KEY}`]));
    expect(h.logs.text()).not.toContain(COLLECTOR_KEY);
    const responseUrls = h.slack.responses.map((r) => r.id);
    expect(responseUrls.length).toBeGreaterThan(0);
    for (const id of responseUrls) expect(exported).not.toContain(id);
    expect(exported).not.toContain('/v3/');
    // Only requests made for the app's spans are traced (not the test's own): each HTTP span
    // has a parent.
    const http = collector.spans.filter((s) => /^(GET|POST|PUT|DELETE)$/.test(s.name));
    expect(http.length).toBeGreaterThan(0);
    expect(http.filter((s) => !s.parentSpanId)).toEqual([]);
    // Neither Slack nor CometChat is sent a trace header.
    const headers = h.sandbox.requests.map((r) => Object.keys(r.headers));
    expect(headers.length).toBeGreaterThan(0);
    expect(headers.flat().filter((name) => /traceparent|tracestate|baggage/i.test(name))).toEqual(
      [],
    );
  });

  it("puts a failure's reply, sent by Bolt's error handler after the request, in the request's trace", async () => {
    const { collector, h, stop } = await startTraced({
      COMETCHAT_TIMEOUT_MS: '300',
      COMETCHAT_BUDGET_MS: '600',
    });
    h.sandbox.inject({ kind: 'status', status: 503, times: Number.POSITIVE_INFINITY });
    await commandText(h, 'roles');
    await stop();
    const [roles] = collector.spans.filter((s) => s.name === 'slack command roles');
    // The reply to the response_url, made by the error handler: traced, in the same trace.
    const replies = collector.spans.filter(
      (s) => s.name === 'POST' && s.traceId === roles?.traceId && s.parentSpanId === roles?.spanId,
    );
    expect(replies.length).toBeGreaterThan(0);
    const failed = h.logs.records().find((r) => r.message === 'request failed');
    expect((failed?.trace as { id?: string } | undefined)?.id).toBe(roles?.traceId);
  });

  it('starts no exporter without an endpoint: no span ids on log lines, nothing said of OTLP', async () => {
    const h = await startHarness();
    cleanup.push(() => h.stop());
    expect(await commandText(h, 'roles')).toContain('CometChat roles');
    const records = h.logs.records();
    expect(records.length).toBeGreaterThan(0);
    expect(records.filter((r) => r.trace !== undefined || r.span !== undefined)).toEqual([]);
    expect(records.some((r) => JSON.stringify(r).includes('OTLP'))).toBe(false);
  });
});
