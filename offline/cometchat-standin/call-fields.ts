import { z } from 'zod';
import type { CallRecord } from './state.ts';

// The fields of a call record that the webhook payloads and the usage figures read. Records
// are kept loose (state.ts) and may carry drifted shapes, so they are read through this schema
// rather than cast: a field of an unexpected type is dropped, not trusted.

const optionalNumber = z.number().optional().catch(undefined);
const optionalString = z.string().optional().catch(undefined);

const ParticipantFields = z.object({
  uid: optionalString,
  name: optionalString,
  joinedAt: optionalNumber,
  leftAt: optionalNumber,
  state: optionalString,
  totalDurationInMinutes: optionalNumber,
  /** Older versions: minutes as a number under this name. */
  totalDuration: optionalNumber,
});

const RecordingFields = z.object({
  rid: z.string(),
  recording_url: z.string(),
  startTime: z.number(),
  endTime: z.number(),
  duration: z.number(),
});

const TranscriptionFields = z.object({
  tid: z.string(),
  transcriptUrl: z.string(),
  transcriptDate: z.string(),
  startTime: z.number(),
  endTime: z.number(),
});

/** Entries that do not fit are left out, so one odd entry does not hide the others. */
function listOf<T extends z.ZodType>(item: T) {
  return z
    .array(z.unknown())
    .catch([])
    .default([])
    .transform((entries) =>
      entries.flatMap((entry) => {
        const parsed = item.safeParse(entry);
        return parsed.success ? [parsed.data] : [];
      }),
    );
}

const CallFieldsSchema = z.object({
  sessionId: z.string(),
  type: optionalString,
  mode: optionalString,
  status: optionalString,
  /** Uids: who called, and the user or group called. */
  initiator: optionalString,
  receiver: optionalString,
  receiverType: optionalString,
  initiatedAt: optionalNumber,
  startedAt: optionalNumber,
  endedAt: optionalNumber,
  participants: listOf(ParticipantFields),
  recordings: listOf(RecordingFields),
  transcriptions: listOf(TranscriptionFields),
});

export type CallFields = z.output<typeof CallFieldsSchema>;
export type ParticipantFields = z.output<typeof ParticipantFields>;

export function readCall(record: CallRecord): CallFields {
  return CallFieldsSchema.parse(record);
}

/** When the call began: started, or (never answered) initiated. Unix seconds. */
export function callStart(call: CallFields): number | undefined {
  return call.startedAt ?? call.initiatedAt;
}

/** A participant's minutes, under either name the live service has used. */
export function participantMinutes(participant: ParticipantFields): number {
  return participant.totalDurationInMinutes ?? participant.totalDuration ?? 0;
}
