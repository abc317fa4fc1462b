import { createHash } from 'node:crypto';
import { z } from 'zod';

// What CometChat's webhooks send (live-api-notes.md, "Webhooks"): an envelope naming the trigger,
// and the trigger's data. Only the triggers alerts are made of are read further; every other
// trigger is counted and dropped where it arrives.

/** The envelope every webhook delivery has. */
export const EnvelopeSchema = z.looseObject({
  trigger: z.string().min(1).max(100),
  data: z.looseObject({}),
  appId: z.string().max(200).optional(),
  region: z.string().max(20).optional(),
  webhook: z.string().max(200).optional(),
});

/** The triggers alerts are made of, and the subscription kind each one reaches. */
export const ALERT_TRIGGERS = {
  call_ended: 'calls',
  recording_generated: 'recordings',
  transcription_generated: 'transcripts',
} as const;
export type AlertTrigger = keyof typeof ALERT_TRIGGERS;

export function isAlertTrigger(trigger: string): trigger is AlertTrigger {
  return Object.hasOwn(ALERT_TRIGGERS, trigger);
}

/** Every alert's data names its call; an artefact's its link too (the rest is not read). */
const SessionSchema = z.looseObject({ sessionId: z.string().min(1).max(255) });

export const RecordingDataSchema = SessionSchema.extend({
  recording_url: z.string().max(2000).optional(),
});
export const TranscriptionDataSchema = SessionSchema.extend({
  transcript_url: z.string().max(2000).optional(),
});

/** What an alert needs of an event: its call, and for an artefact, its link. */
export interface AlertFacts {
  trigger: AlertTrigger;
  sessionId: string;
  /** A recording's or a transcript's address, as CometChat sent it. */
  link?: string | undefined;
}

/** The facts of an alert trigger's data, or undefined when the data is not of its shape. Pure. */
export function alertFacts(trigger: AlertTrigger, data: unknown): AlertFacts | undefined {
  if (trigger === 'recording_generated') {
    const parsed = RecordingDataSchema.safeParse(data);
    return parsed.success
      ? { trigger, sessionId: parsed.data.sessionId, link: parsed.data.recording_url }
      : undefined;
  }
  if (trigger === 'transcription_generated') {
    const parsed = TranscriptionDataSchema.safeParse(data);
    return parsed.success
      ? { trigger, sessionId: parsed.data.sessionId, link: parsed.data.transcript_url }
      : undefined;
  }
  const parsed = SessionSchema.safeParse(data);
  return parsed.success ? { trigger, sessionId: parsed.data.sessionId } : undefined;
}

/** The fields that tell one event from another of the same trigger and call. */
const DISTINCT_FIELDS = ['sessionId', 'destroyed_at', 'recording_url', 'rid', 'tid'] as const;

/**
 * A delivery's id, from what the event is, not how its bytes are written: the same event to the
 * same app is the same id however often CometChat or a proxy sends it, re-serialised or not
 * (its trigger, its call, and for an end or an artefact what tells it from another of the call).
 */
export function deliveryId(app: string, envelope: { trigger: string; data: object }): string {
  const data = envelope.data as Record<string, unknown>;
  const parts = [app, envelope.trigger, ...DISTINCT_FIELDS.map((key) => String(data[key] ?? ''))];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

/** Longer, a link would not fit the post's text (Slack's 3000 characters) with the rest. */
const MAX_LINK = 2_000;

/** A link CometChat sent, if it is one a person may open: https only, and short enough to post. */
export function safeLink(link: string | undefined): string | undefined {
  if (!link) return undefined;
  try {
    const url = new URL(link);
    const text = url.toString();
    return url.protocol === 'https:' && text.length <= MAX_LINK ? text : undefined;
  } catch {
    return undefined;
  }
}
