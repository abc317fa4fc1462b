import { createHash } from 'node:crypto';
import { z } from 'zod';

// What CometChat's webhooks send (live-api-notes.md, "Webhooks"): an envelope naming the trigger,
// and the trigger's data. Only the triggers alerts are made of are read further; every other
// trigger is counted and dropped where it arrives.

/** The envelope every webhook delivery has. */
export const EnvelopeSchema = z.looseObject({
  trigger: z.string().min(1).max(100),
  /** `call` or `meet` on the call-session triggers (`call_ended`, `meeting_ended`, ...). */
  type: z.string().max(20).optional(),
  data: z.looseObject({}),
  appId: z.string().max(200).optional(),
  region: z.string().max(20).optional(),
  webhook: z.string().max(200).optional(),
});
export type Envelope = z.infer<typeof EnvelopeSchema>;

/**
 * The triggers alerts are made of, and the subscription kind each one reaches. A call ends with
 * one of six (the calls documentation's two flows): `call_ended` only once a ringing call was
 * answered, one trigger for each other way it ends, and `meeting_ended` for a session joined
 * without ringing.
 */
export const ALERT_TRIGGERS = {
  call_ended: 'calls',
  call_unanswered: 'calls',
  call_rejected: 'calls',
  call_busy: 'calls',
  call_cancelled: 'calls',
  meeting_ended: 'calls',
  recording_generated: 'recordings',
  transcription_generated: 'transcripts',
} as const;
export type AlertTrigger = keyof typeof ALERT_TRIGGERS;

export function isAlertTrigger(trigger: string): trigger is AlertTrigger {
  return Object.hasOwn(ALERT_TRIGGERS, trigger);
}

/** The call's status each ending says, in the call search's words (`status:unanswered`). */
const ENDED_AS: Partial<Record<AlertTrigger, string>> = {
  call_ended: 'ended',
  meeting_ended: 'ended',
  call_unanswered: 'unanswered',
  call_rejected: 'rejected',
  call_busy: 'busy',
  call_cancelled: 'canceled',
};

/** The ringing flow's outcomes: their data is the call's message, not its session. */
type RingingOutcome = 'call_unanswered' | 'call_rejected' | 'call_busy' | 'call_cancelled';

function isRingingOutcome(trigger: AlertTrigger): trigger is RingingOutcome {
  return ['call_unanswered', 'call_rejected', 'call_busy', 'call_cancelled'].includes(trigger);
}

const SessionId = z.string().min(1).max(255);
const Uid = z.string().min(1).max(255);
/** Every alert's data names its call; an artefact's its link too (the rest is not read). */
const SessionSchema = z.looseObject({ sessionId: SessionId });

export const EndedDataSchema = SessionSchema.extend({
  destroyed_at: z.number().optional().catch(undefined),
});
export const RecordingDataSchema = SessionSchema.extend({
  recording_url: z.string().max(2000).optional(),
});
export const TranscriptionDataSchema = SessionSchema.extend({
  transcript_url: z.string().max(2000).optional(),
});

/**
 * A ringing outcome's data: the call's message. Who sent it is not always the caller (a
 * rejection is sent by the person called), so the two are read as the people of the call. The
 * session is read when the message carries it (`data.entities.on.entity`); else the message is
 * read from CometChat for it.
 */
export const CallMessageDataSchema = z.looseObject({
  call: z.looseObject({
    id: z.union([z.string().min(1).max(100), z.number().int().nonnegative()]).transform(String),
    sender: Uid.optional().catch(undefined),
    receiver: Uid.optional().catch(undefined),
    receiverType: z.enum(['user', 'group']).optional().catch(undefined),
    type: z.string().max(20).optional().catch(undefined),
    sentAt: z.number().optional().catch(undefined),
    data: z
      .looseObject({
        entities: z.looseObject({
          on: z.looseObject({ entity: z.looseObject({ sessionid: SessionId }) }),
        }),
      })
      .optional()
      .catch(undefined),
  }),
});

/** What the event itself says of the call, before anything is read from CometChat. */
export interface KnownCall {
  /** In the call search's words: `ended`, `unanswered`, `rejected`, `busy`, `canceled`. */
  status?: string | undefined;
  mode?: string | undefined;
  type?: string | undefined;
  receiverType?: string | undefined;
  /** The uids the event names (a ringing call's two ends; a group's id for a group call). */
  people?: string[] | undefined;
  /** When it ended, Unix seconds. */
  endedAt?: number | undefined;
}

/** What an alert needs of an event: its call (by session or by message), and an artefact's link. */
export interface AlertFacts {
  trigger: AlertTrigger;
  /** The call's session; a ringing outcome may name only its message. */
  sessionId?: string | undefined;
  /** A ringing outcome's call message, read from CometChat to find the session. */
  messageId?: string | undefined;
  known: KnownCall;
  /** A recording's or a transcript's address, as CometChat sent it. */
  link?: string | undefined;
}

/** The facts of an alert trigger's envelope, or undefined when its data is not of its shape. Pure. */
export function alertFacts(trigger: AlertTrigger, envelope: Envelope): AlertFacts | undefined {
  const { data } = envelope;
  if (trigger === 'recording_generated') {
    const parsed = RecordingDataSchema.safeParse(data);
    return parsed.success
      ? { trigger, sessionId: parsed.data.sessionId, link: parsed.data.recording_url, known: {} }
      : undefined;
  }
  if (trigger === 'transcription_generated') {
    const parsed = TranscriptionDataSchema.safeParse(data);
    return parsed.success
      ? { trigger, sessionId: parsed.data.sessionId, link: parsed.data.transcript_url, known: {} }
      : undefined;
  }
  if (isRingingOutcome(trigger)) return ringingFacts(trigger, data);
  const parsed = EndedDataSchema.safeParse(data);
  if (!parsed.success) return undefined;
  // `meet` for a session; `call` for a ringing call that was answered (the envelope says which).
  const mode = trigger === 'meeting_ended' || envelope.type === 'meet' ? 'meet' : 'call';
  return {
    trigger,
    sessionId: parsed.data.sessionId,
    known: { status: ENDED_AS[trigger], mode, endedAt: parsed.data.destroyed_at },
  };
}

function ringingFacts(trigger: RingingOutcome, data: unknown): AlertFacts | undefined {
  const parsed = CallMessageDataSchema.safeParse(data);
  if (!parsed.success) return undefined;
  const { call } = parsed.data;
  return {
    trigger,
    sessionId: call.data?.entities.on.entity.sessionid,
    messageId: call.id,
    known: {
      status: ENDED_AS[trigger],
      mode: 'call',
      type: call.type,
      receiverType: call.receiverType,
      people: [call.sender, call.receiver].filter((uid) => uid !== undefined),
      endedAt: call.sentAt,
    },
  };
}

/**
 * The fields that tell one event from another of the same trigger, as CometChat's documentation
 * names them for de-duplication: a call's session with its end, an artefact's id, a ringing
 * outcome's message with its time. The webhook's own id is left out: two of an app's webhooks
 * pointing here carry the same event, which is posted once.
 */
const DISTINCT_FIELDS = ['sessionId', 'destroyed_at', 'recording_url', 'rid', 'tid'] as const;
const DISTINCT_CALL_FIELDS = ['id', 'sentAt'] as const;

/**
 * A delivery's id, from what the event is, not how its bytes are written: the same event to the
 * same app is the same id however often CometChat or a proxy sends it, re-serialised or not.
 */
export function deliveryId(app: string, envelope: { trigger: string; data: object }): string {
  const data = new Map(Object.entries(envelope.data));
  const call = data.get('call');
  const message = new Map(typeof call === 'object' && call !== null ? Object.entries(call) : []);
  const parts = [
    app,
    envelope.trigger,
    ...DISTINCT_FIELDS.map((key) => String(data.get(key) ?? '')),
    ...DISTINCT_CALL_FIELDS.map((key) => String(message.get(key) ?? '')),
  ];
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
