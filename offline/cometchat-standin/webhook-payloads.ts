import { callStart, readCall } from './call-fields.ts';
import type { SandboxState } from './state.ts';

// The `data` of the webhooks CometChat sends for calls and their artefacts, built from the
// stand-in's own call records (live-api-notes.md, "Webhooks"). What the notes leave open follows
// CometChat's published examples: times are Unix seconds as numbers, and `audio_call` is the
// text "true" or "false", as in the examples of the participant events. Types rather than
// interfaces, so that a payload is a `Record<string, unknown>` for `send`.

export type CallEndedOccupant = {
  /** The display name only: the webhook carries no uid (read the call for uids and states). */
  name: string;
  joined_at: number;
  left_at: number;
  audio_call: 'true' | 'false';
};

/** `call_ended`'s data, and `meeting_ended`'s (the same shape; `type` sits in the envelope). */
export type CallEndedData = {
  sessionId: string;
  /** Unix seconds: when the call started (or, never answered, was initiated). */
  created_at: number;
  /** Unix seconds: when it ended. */
  destroyed_at: number;
  /** Those who joined; whoever never answered is not an occupant. */
  all_occupants: CallEndedOccupant[];
};

/** All strings, as documented. */
export type RecordingGeneratedData = {
  sessionId: string;
  recording_url: string;
  /** ISO 8601 text of the recording's start. */
  recordingDate: string;
  /** Unix seconds, as text. */
  startTime: string;
  /** Minutes, as text (e.g. "15.2"). */
  duration: string;
};

/** All strings, like the recording's payload. */
export type TranscriptionGeneratedData = {
  sessionId: string;
  tid: string;
  /** ISO 8601 text, as the call record holds it. */
  transcriptDate: string;
  transcript_url: string;
  /** Unix seconds, as text. */
  startTime: string;
  endTime: string;
};

function callOf(state: SandboxState, sessionId: string) {
  const seeded = state.calls.get(sessionId);
  if (seeded === undefined) throw new Error(`webhooks: no call with session id "${sessionId}"`);
  return readCall(seeded.record);
}

/** Throws for an unknown call and for one that has not ended (see `endCall`). */
export function callEndedData(state: SandboxState, sessionId: string): CallEndedData {
  const call = callOf(state, sessionId);
  const createdAt = callStart(call);
  if (call.endedAt === undefined || createdAt === undefined) {
    throw new Error(`webhooks: the call "${sessionId}" has not ended; end it with endCall first`);
  }
  const destroyedAt = call.endedAt;
  const audio = call.type === 'audio' ? 'true' : 'false';
  return {
    sessionId: call.sessionId,
    created_at: createdAt,
    destroyed_at: destroyedAt,
    all_occupants: call.participants.flatMap((p) =>
      p.joinedAt === undefined
        ? []
        : [
            {
              // A participant the record names not is shown by uid, as the calls SDK does.
              name: p.name ?? p.uid ?? '',
              joined_at: p.joinedAt,
              left_at: p.leftAt ?? destroyedAt,
              audio_call: audio,
            },
          ],
    ),
  };
}

/** One of the call's recordings (`rid`, else the first); throws when there is none. */
export function recordingGeneratedData(
  state: SandboxState,
  sessionId: string,
  rid?: string,
): RecordingGeneratedData {
  const call = callOf(state, sessionId);
  const recording = call.recordings.find((r) => rid === undefined || r.rid === rid);
  if (recording === undefined) {
    throw new Error(`webhooks: the call "${sessionId}" has no recording${rid ? ` "${rid}"` : ''}`);
  }
  return {
    sessionId: call.sessionId,
    recording_url: recording.recording_url,
    recordingDate: new Date(recording.startTime * 1000).toISOString(),
    startTime: String(recording.startTime),
    duration: String(recording.duration),
  };
}

/** One of the call's transcriptions (`tid`, else the first); throws when there is none. */
export function transcriptionGeneratedData(
  state: SandboxState,
  sessionId: string,
  tid?: string,
): TranscriptionGeneratedData {
  const call = callOf(state, sessionId);
  const transcription = call.transcriptions.find((t) => tid === undefined || t.tid === tid);
  if (transcription === undefined) {
    throw new Error(
      `webhooks: the call "${sessionId}" has no transcription${tid ? ` "${tid}"` : ''}`,
    );
  }
  return {
    sessionId: call.sessionId,
    tid: transcription.tid,
    transcriptDate: transcription.transcriptDate,
    transcript_url: transcription.transcriptUrl,
    startTime: String(transcription.startTime),
    endTime: String(transcription.endTime),
  };
}

/** The statuses an ended call can have (live-api-notes.md, "Calls"; `busy` from the SDK's). */
export const ENDED_STATUSES = ['ended', 'unanswered', 'rejected', 'canceled', 'busy'] as const;
export type EndedStatus = (typeof ENDED_STATUSES)[number];

/**
 * The trigger that tells how a ringing call ended (the calls documentation's ringing flow):
 * `call_ended` only for a call that was answered; each other outcome has its own.
 */
export const RINGING_OUTCOMES = {
  ended: 'call_ended',
  unanswered: 'call_unanswered',
  rejected: 'call_rejected',
  canceled: 'call_cancelled',
  busy: 'call_busy',
} as const satisfies Record<EndedStatus, string>;

/** The `action` of the call message each ringing trigger carries. */
const ACTIONS: Record<string, string> = {
  call_initiated: 'initiated',
  call_unanswered: 'unanswered',
  call_rejected: 'rejected',
  call_cancelled: 'cancelled',
  call_busy: 'busy',
};

/** The triggers whose data is the call's message (`data.call`), not `data.sessionId`. */
export type RingingTrigger =
  | 'call_initiated'
  | Exclude<(typeof RINGING_OUTCOMES)[EndedStatus], 'call_ended'>;

/** A ringing trigger's data: the call's message, as CometChat's examples show it. */
export type CallMessageData = { call: Record<string, unknown> };

/**
 * The id of the call's message: made the first time it is asked for, then the same, so that
 * `call_initiated` and the outcome name one message and GET /v3/messages/{id} finds it.
 */
function messageIdOf(state: SandboxState, sessionId: string): string {
  for (const [id, session] of state.callMessages) if (session === sessionId) return id;
  const id = String(43_400 + state.callMessages.size);
  state.callMessages.set(id, sessionId);
  return id;
}

/**
 * The call's message as GET /v3/messages/{id} answers it: who called whom, and the session in
 * `data.entities.on.entity`.
 */
export function callMessage(state: SandboxState, messageId: string): Record<string, unknown> {
  const sessionId = state.callMessages.get(messageId);
  if (sessionId === undefined) throw new Error(`webhooks: no call message "${messageId}"`);
  return messageOf(state, sessionId, 'call_initiated', true);
}

function messageOf(
  state: SandboxState,
  sessionId: string,
  trigger: RingingTrigger,
  withSession: boolean,
): Record<string, unknown> {
  const call = callOf(state, sessionId);
  const sender = call.initiator ?? '';
  const receiver = call.receiver ?? '';
  const receiverType = call.receiverType ?? 'user';
  const sentAt = trigger === 'call_initiated' ? callStart(call) : (call.endedAt ?? callStart(call));
  const session = {
    on: {
      entity: {
        sessionid: call.sessionId,
        status: call.status,
        type: call.type,
        initiatedAt: call.initiatedAt,
      },
      entityType: 'call',
    },
  };
  return {
    id: messageIdOf(state, sessionId),
    conversationId:
      receiverType === 'group' ? `group_${receiver}` : [sender, receiver].sort().join('_user_'),
    sender,
    receiverType,
    receiver,
    category: 'call',
    type: call.type ?? 'audio',
    // The outcomes' examples carry the action alone; call_initiated carries the session too.
    data: { action: ACTIONS[trigger], ...(withSession ? { entities: session } : {}) },
    sentAt,
    updatedAt: sentAt,
  };
}

/** A ringing trigger's data for a seeded call: `call_initiated`, or how it ended. */
export function callMessageData(
  state: SandboxState,
  sessionId: string,
  trigger: RingingTrigger,
): CallMessageData {
  return { call: messageOf(state, sessionId, trigger, trigger === 'call_initiated') };
}

/** The trigger and data CometChat sends when the seeded call ends, as its flow and status say. */
export function endedFlow(
  state: SandboxState,
  sessionId: string,
): { trigger: string; data: Record<string, unknown> } {
  const call = callOf(state, sessionId);
  if (call.mode === 'meet' || call.mode === 'presenter') {
    return { trigger: 'meeting_ended', data: callEndedData(state, sessionId) };
  }
  const trigger = RINGING_OUTCOMES[ENDED_STATUSES.find((s) => s === call.status) ?? 'ended'];
  return trigger === 'call_ended'
    ? { trigger, data: callEndedData(state, sessionId) }
    : { trigger, data: callMessageData(state, sessionId, trigger) };
}

/** The envelope's `type` of a call trigger (`call` or `meet`), beside `trigger`; else none. */
export function envelopeType(trigger: string): 'call' | 'meet' | undefined {
  if (trigger.startsWith('meeting_')) return 'meet';
  const session = [
    'call_started',
    'call_participant_joined',
    'call_participant_left',
    'call_ended',
  ];
  return session.includes(trigger) ? 'call' : undefined;
}

/**
 * Ends a call in the state: its status and `endedAt`; whoever is still in it leaves then (their
 * minutes counted), and whoever never joined gets the outcome as their state (`unanswered` when
 * the call itself ended normally). Throws for an unknown call or a status a call cannot end in.
 */
export function endCallInState(
  state: SandboxState,
  sessionId: string,
  outcome: { status: EndedStatus; endedAt: number },
): void {
  const seeded = state.calls.get(sessionId);
  if (seeded === undefined) throw new Error(`webhooks: no call with session id "${sessionId}"`);
  if (!(ENDED_STATUSES as readonly string[]).includes(outcome.status)) {
    throw new TypeError(`webhooks: a call cannot end as "${outcome.status}"`);
  }
  const { record } = seeded;
  record.status = outcome.status;
  record.endedAt = outcome.endedAt;
  const absent = outcome.status === 'ended' ? 'unanswered' : outcome.status;
  const participants = Array.isArray(record.participants) ? record.participants : [];
  for (const participant of participants) {
    if (typeof participant !== 'object' || participant === null) continue;
    // The stand-in's own record, changed in place like any other state change.
    const p = participant as Record<string, unknown>;
    if (typeof p.joinedAt !== 'number') {
      if (p.state === undefined || p.state === 'ongoing') p.state = absent;
      continue;
    }
    if (p.leftAt !== undefined) continue;
    const leftAt = Math.max(p.joinedAt, outcome.endedAt);
    p.leftAt = leftAt;
    p.totalDurationInMinutes = Math.round(((leftAt - p.joinedAt) / 60) * 100) / 100;
    // The initiator carries no state on the live service; only an ongoing one changes.
    if (p.state === 'ongoing') p.state = 'ended';
  }
}
