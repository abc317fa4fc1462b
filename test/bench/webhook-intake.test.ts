import { describe, expect, it } from 'vitest';
import { INTAKE_WEBHOOK, webhookCounts, webhookEvents } from '../../bench/webhook-intake.ts';
import { EnvelopeSchema, isAlertTrigger } from '../../src/features/alerts/webhook-event.ts';
import { passwordMatches } from '../../src/features/alerts/webhook-intake.ts';

// The intake bench must send what the app takes as new events, or it measures refusals and
// deduplication instead.

const TEMPLATE = {
  sessionId: 'v1.us.sandbox-app.1700003600abcdef0002',
  type: 'call',
  created_at: 1700003600,
  destroyed_at: 1700003630,
  all_occupants: [
    { name: 'Nancy', joined_at: 1700003600, left_at: 1700003630, audio_call: 'false' },
  ],
};

describe('webhookEvents', () => {
  it('makes call_ended deliveries the app takes: its envelope, its Basic authentication', () => {
    const next = webhookEvents(TEMPLATE);
    const event = next();
    const envelope = EnvelopeSchema.parse(JSON.parse(event.body));
    expect(isAlertTrigger(envelope.trigger)).toBe(true);
    expect(envelope.data).toMatchObject({ ...TEMPLATE, sessionId: event.key });
    expect(event.headers['content-type']).toBe('application/json');
    expect(passwordMatches(event.headers.authorization, INTAKE_WEBHOOK)).toBe(true);
  });

  it('never makes the same delivery twice', () => {
    const next = webhookEvents(TEMPLATE);
    const bodies = new Set(Array.from({ length: 1_000 }, () => next().body));
    expect(bodies.size).toBe(1_000);
  });
});

describe('webhookCounts', () => {
  it("sums the app's webhook deliveries by outcome, over its apps", () => {
    const metrics = [
      '# HELP cometchat_ops_webhook_events_total CometChat webhook deliveries.',
      'cometchat_ops_webhook_events_total{app="default",outcome="received"} 120',
      'cometchat_ops_webhook_events_total{app="other",outcome="received"} 3',
      'cometchat_ops_webhook_events_total{app="-",outcome="refused"} 1',
      'cometchat_ops_http_requests_total{outcome="received"} 99',
    ].join('\n');
    expect(webhookCounts(metrics)).toEqual({ received: 123, refused: 1 });
  });
});
