import { z } from 'zod';
import { GROUP_SCOPES } from './group-model.ts';

// Every schema here accepts fields it does not know: the live service adds fields between
// versions (see live-api-notes.md), and an ops tool must keep working when it does. Fields the
// reference marks required but the notes say may be missing get defaults. Unknown fields pass
// through, except in call records, the largest answers (a page of ten calls is about 12 KB):
// there they are dropped, since copying them nearly doubled the time to validate a page (79
// against 42 µs), and the app reads only the fields named.

const unixSeconds = z.number().finite().nonnegative();

/** A role id as the service accepts it (it lower-cases ids on create). */
export const ROLE_ID = /^[a-z0-9_-]{1,100}$/;
export const RoleIdSchema = z.string().regex(ROLE_ID);

export const RoleSchema = z.looseObject({
  role: z.string().min(1),
  name: z.string().default(''),
  description: z.string().default(''),
  metadata: z.record(z.string(), z.unknown()).optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
  createdAt: unixSeconds.optional(),
  updatedAt: unixSeconds.optional(),
});
export type Role = z.infer<typeof RoleSchema>;

export const PaginationSchema = z.looseObject({
  total: z.number().int().nonnegative(),
  count: z.number().int().nonnegative(),
  per_page: z.number().int().positive(),
  current_page: z.number().int().positive(),
  total_pages: z.number().int().nonnegative(),
});
export type Pagination = z.infer<typeof PaginationSchema>;

export const RoleListResponseSchema = z.looseObject({
  data: z.array(RoleSchema),
  meta: z.looseObject({ pagination: PaginationSchema }),
});

/** A permission value: a string (`allow`, `all`, ...), a list of strings, or `null` (no restriction). */
export const PermissionValueSchema = z.union([z.string(), z.array(z.string()), z.null()]);
export type PermissionValue = z.infer<typeof PermissionValueSchema>;

export const PermissionMapSchema = z.record(z.string(), PermissionValueSchema);
export type PermissionMap = z.infer<typeof PermissionMapSchema>;

const KeyResultSchema = z.looseObject({ success: z.boolean(), message: z.string().default('') });
export type KeyResult = z.infer<typeof KeyResultSchema>;

export const PermissionUpdateResponseSchema = z.looseObject({
  // Beside `permissions`, the service puts one `{ success, message }` object per written key
  // (seen for `sendMessage`); anything else in `data` is ignored.
  data: z.looseObject({ permissions: PermissionMapSchema }),
});

/** One role, as the service answers a creation or an update. */
export const RoleResponseSchema = z.looseObject({ data: RoleSchema });

/** A deletion's answer: `{ data: { success, message } }`. */
export const RoleDeletedResponseSchema = z.looseObject({
  data: z.looseObject({ success: z.boolean(), message: z.string().default('') }),
});

/**
 * A permission's definition as the service gives it (`GET /v3/roles/{role}/permissions`): not a
 * role's value but what the key is. Only `id` is required: the rest may drift or be missing.
 */
export const PermissionDefinitionSchema = z.looseObject({
  id: z.string().min(1).max(100),
  title: z.string().max(500).optional(),
  description: z.string().max(2000).optional(),
  dataType: z.string().optional(),
  availableValues: z.array(z.string()).nullable().optional(),
  defaultValue: PermissionValueSchema.optional(),
});
export type PermissionDefinition = z.infer<typeof PermissionDefinitionSchema>;

/**
 * A page of definitions. Each is read on its own: one the app cannot read (a field of another
 * type, say) is left out, not the whole catalogue, which the shipped one then stands in for.
 */
export const PermissionDefinitionListResponseSchema = z.looseObject({
  data: z.array(z.unknown()).transform((items) =>
    items.flatMap((item) => {
      const parsed = PermissionDefinitionSchema.safeParse(item);
      return parsed.success ? [parsed.data] : [];
    }),
  ),
  meta: z.looseObject({ pagination: PaginationSchema }),
});

// A receiver entity is a user (`uid`, `avatar`) or, for group calls, a group (`guid`, `icon`).
const EntitySchema = z.object({
  uid: z.string().optional(),
  guid: z.string().optional(),
  name: z.string().optional(),
  avatar: z.string().optional(),
  icon: z.string().optional(),
});
export type Entity = z.infer<typeof EntitySchema>;

const EntityHolderSchema = z.object({ entity: EntitySchema.optional() });

export const ParticipantSchema = z.object({
  uid: z.string(),
  name: z.string().optional(),
  avatar: z.string().optional(),
  isJoined: z.boolean().optional(),
  state: z.string().optional(),
  deviceId: z.string().optional(),
  totalAudioMinutes: z.number().optional(),
  totalVideoMinutes: z.number().optional(),
  // Duration per participant is `totalDurationInMinutes` in some versions of the service and
  // `totalDuration` (a number of minutes) in others.
  totalDurationInMinutes: z.number().optional(),
  totalDuration: z.union([z.number(), z.string()]).optional(),
  joinedAt: unixSeconds.optional(),
  leftAt: unixSeconds.optional(),
});

export const RecordingSchema = z.object({
  rid: z.string(),
  recording_url: z.string().optional(),
  startTime: unixSeconds.optional(),
  endTime: unixSeconds.optional(),
  duration: z.number().optional(),
});
export type Recording = z.infer<typeof RecordingSchema>;

// `transcriptDate` is ISO text in current documentation; accept Unix seconds too.
export const TranscriptionSchema = z.object({
  tid: z.string(),
  transcriptDate: z.union([z.string(), unixSeconds]).optional(),
  transcriptUrl: z.string().optional(),
  startTime: unixSeconds.optional(),
  endTime: unixSeconds.optional(),
});
export type Transcription = z.infer<typeof TranscriptionSchema>;

export const CallRecordSchema = z.object({
  sessionId: z.string(),
  type: z.string().optional(),
  mode: z.string().optional(),
  status: z.string().optional(),
  receiverType: z.string().optional(),
  initiator: z.string().optional(),
  receiver: z.string().optional(),
  initiatedAt: unixSeconds.optional(),
  startedAt: unixSeconds.optional(),
  endedAt: unixSeconds.optional(),
  totalAudioMinutes: z.number().optional(),
  totalVideoMinutes: z.number().optional(),
  totalDuration: z.string().optional(),
  totalDurationInMinutes: z.number().optional(),
  totalParticipants: z.number().optional(),
  hasRecording: z.boolean().optional(),
  hasTranscription: z.boolean().optional(),
  participants: z.array(ParticipantSchema).default([]),
  recordings: z.array(RecordingSchema).default([]),
  transcriptions: z.array(TranscriptionSchema).default([]),
  data: z
    .looseObject({
      entities: z
        .looseObject({
          initiator: EntityHolderSchema.optional(),
          receiver: EntityHolderSchema.optional(),
        })
        .optional(),
    })
    .optional(),
});
export type CallRecord = z.infer<typeof CallRecordSchema>;

// The reference documents `data` as a one-element array; current documentation as an object.
export const CallResponseSchema = z.object({
  data: z.union([CallRecordSchema, z.array(CallRecordSchema)]),
});

/**
 * A call as the call list reads it: of each participant only whether they joined, and of its
 * recordings and transcriptions only how many. zod's objects were a quarter of what a search
 * allocated (74 of 327 KB a page of ten calls); reading only this cut them to 46 KB
 * (BENCHMARKS.md in git history, "Cheaper per command, third pass").
 */
export const CallSummaryRecordSchema = CallRecordSchema.omit({
  participants: true,
  recordings: true,
  transcriptions: true,
}).extend({
  participants: z.array(ParticipantSchema.pick({ isJoined: true, joinedAt: true })).default([]),
  recordings: z.array(z.unknown()).default([]),
  transcriptions: z.array(z.unknown()).default([]),
});
export type CallSummaryRecord = z.infer<typeof CallSummaryRecordSchema>;

// The call list: `per_page` is missing in some versions of the service, and so may `meta` be.
export const CallListResponseSchema = z.object({
  data: z.array(CallSummaryRecordSchema),
  meta: z
    .looseObject({
      pagination: z.object({
        total: z.number().int().nonnegative(),
        count: z.number().int().nonnegative().optional(),
        per_page: z.number().int().positive().optional(),
        current_page: z.number().int().positive(),
        total_pages: z.number().int().nonnegative(),
      }),
    })
    .optional(),
});

/** A usage figure: a number, or absent (null read as absent). */
const figure = z.number().finite().nullish();

/**
 * `GET /v3/stats` (live-api-notes.md, "Usage"): the figures under `data.metrics`, each of which
 * may be missing, and `data.time_range` as the service echoes it (seconds or milliseconds).
 */
export const UsageResponseSchema = z.looseObject({
  data: z.looseObject({
    metrics: z
      .looseObject({
        audio_minutes: figure,
        video_minutes: figure,
        recorded_minutes: figure,
        active_users: figure,
        concurrent_users: figure,
      })
      .default({}),
    time_range: z
      .looseObject({
        fromDate: z.union([z.number(), z.string()]).optional(),
        toDate: z.union([z.number(), z.string()]).optional(),
      })
      .optional(),
  }),
});
export type UsageMetrics = z.infer<typeof UsageResponseSchema>['data']['metrics'];

/**
 * Unix seconds. User records are read loosely: a timestamp may come as digits in a string (as
 * the webhooks send theirs) and an absent value as null.
 */
const looseSeconds = z
  .union([
    unixSeconds,
    z
      .string()
      .regex(/^\d{1,12}$/)
      .transform(Number),
  ])
  .nullish();

export const UserRecordSchema = z.looseObject({
  uid: z.string().min(1),
  name: z.string().nullish(),
  avatar: z.string().nullish(),
  link: z.string().nullish(),
  role: z.string().nullish(),
  status: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  tags: z.array(z.string()).nullish(),
  createdAt: looseSeconds,
  updatedAt: looseSeconds,
  lastActiveAt: looseSeconds,
  deactivatedAt: looseSeconds,
});
export type UserRecord = z.infer<typeof UserRecordSchema>;

export const UserResponseSchema = z.looseObject({ data: UserRecordSchema });

export const UserListResponseSchema = z.looseObject({
  data: z.array(UserRecordSchema),
  meta: z.looseObject({ pagination: PaginationSchema }),
});

/** A count needs only the total: the one user on the page is not read. */
export const UserCountResponseSchema = z.looseObject({
  meta: z.looseObject({
    pagination: z.looseObject({ total: z.number().int().nonnegative() }),
  }),
});

export const DeactivateUsersResponseSchema = z.looseObject({
  data: z.looseObject({ deactivatedUids: z.array(z.string()) }),
});

export const ReactivateUsersResponseSchema = z.looseObject({
  data: z.looseObject({ nonDeactivatedUids: z.array(z.string()) }),
});

/**
 * `GET /v3/messages/{id}`, read for a ringing call's message: the session it rang for sits in
 * `data.entities.on.entity.sessionid` (live-api-notes.md, "Webhooks"). Nothing else is read.
 */
export const CallMessageResponseSchema = z.looseObject({
  data: z.looseObject({
    id: z.union([z.string(), z.number()]).transform(String),
    data: z
      .looseObject({
        entities: z.looseObject({
          on: z.looseObject({ entity: z.looseObject({ sessionid: z.string().min(1) }) }),
        }),
      })
      .optional()
      .catch(undefined),
  }),
});

export const ErrorBodySchema = z.looseObject({
  error: z.looseObject({
    message: z.string().optional(),
    devMessage: z.string().optional(),
    source: z.string().optional(),
    code: z.string().optional(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

// A user's account as an account in trouble needs it (account-model.ts): sessions, messages,
// groups (live-api-notes.md, "Sessions: auth tokens", "Messages", "Groups").

/** A list's pagination, when the answer carries one (a list without it is one page). */
const OptionalPagingSchema = z
  .looseObject({ pagination: PaginationSchema.optional() })
  .nullish()
  .transform((meta) => meta?.pagination);

/** An auth token: a credential, read only by sessions.ts, which never lets it out. */
export const AuthTokenRecordSchema = z.looseObject({
  authToken: z.string().min(1),
  createdAt: looseSeconds,
  platform: z.string().nullish(),
  userAgent: z.string().nullish(),
  /** Text, or (in some versions) the app's name and version. */
  appInfo: z
    .union([
      z.string(),
      z.looseObject({ name: z.string().nullish(), version: z.string().nullish() }),
    ])
    .nullish()
    .catch(undefined),
});
export type AuthTokenRecord = z.infer<typeof AuthTokenRecordSchema>;

export const AuthTokenListResponseSchema = z.looseObject({
  data: z.array(AuthTokenRecordSchema),
  meta: OptionalPagingSchema,
});

/** An id, sent as a number by some versions of the service. */
const MessageIdSchema = z
  .union([z.string().min(1), z.number().int().nonnegative()])
  .transform(String);

export const ChatMessageRecordSchema = z.looseObject({
  id: MessageIdSchema,
  conversationId: z.string().nullish(),
  sender: z.string().min(1),
  receiverType: z.enum(['user', 'group']),
  receiver: z.string().min(1),
  category: z.string().default('message'),
  type: z.string().default('text'),
  data: z
    .looseObject({
      text: z.string().nullish().catch(undefined),
      attachments: z.array(z.unknown()).nullish().catch(undefined),
    })
    .nullish(),
  sentAt: z.union([
    unixSeconds,
    z
      .string()
      .regex(/^\d{1,12}$/)
      .transform(Number),
  ]),
  editedAt: looseSeconds,
  deletedAt: looseSeconds,
});
export type ChatMessageRecord = z.infer<typeof ChatMessageRecordSchema>;

/** `meta.next`: where the next page starts; no id, no cursor the client can follow. */
const NextSchema = z
  .looseObject({
    affix: z.enum(['append', 'prepend']),
    id: MessageIdSchema.optional(),
    sentAt: looseSeconds,
  })
  .nullish()
  .catch(undefined);

export const MessageListResponseSchema = z.looseObject({
  data: z.array(ChatMessageRecordSchema),
  meta: z.looseObject({ next: NextSchema }).nullish(),
});

export const MessageResponseSchema = z.looseObject({ data: ChatMessageRecordSchema });

export const GroupRecordSchema = z.looseObject({
  guid: z.string().min(1),
  name: z.string().nullish(),
  type: z.string().nullish(),
  /** Listed on a user's behalf: whether they are a member, and their scope then. */
  hasJoined: z.boolean().nullish(),
  scope: z.string().nullish(),
});
export type GroupRecord = z.infer<typeof GroupRecordSchema>;

export const GroupListResponseSchema = z.looseObject({
  data: z.array(GroupRecordSchema),
  meta: OptionalPagingSchema,
});

/** One group as `GET /v3/groups/{guid}` answers it (the list's items add `hasJoined`, `scope`). */
export const GroupDetailSchema = GroupRecordSchema.extend({
  description: z.string().nullish(),
  owner: z.string().nullish(),
  membersCount: z.number().int().nonnegative().nullish(),
  createdAt: looseSeconds,
  tags: z.array(z.string()).nullish(),
});
export type GroupDetail = z.infer<typeof GroupDetailSchema>;

export const GroupResponseSchema = z.looseObject({ data: GroupDetailSchema });

export const GroupPageResponseSchema = z.looseObject({
  data: z.array(GroupDetailSchema),
  meta: OptionalPagingSchema,
});

/** A member: the scope is one of the three (the members list filters by them). */
export const GroupMemberRecordSchema = z.looseObject({
  uid: z.string().min(1),
  name: z.string().nullish(),
  role: z.string().nullish(),
  scope: z.enum(GROUP_SCOPES),
  joinedAt: looseSeconds,
});

export const GroupMemberListResponseSchema = z.looseObject({
  data: z.array(GroupMemberRecordSchema),
  meta: OptionalPagingSchema,
});

export const BannedMemberListResponseSchema = z.looseObject({
  data: z.array(z.looseObject({ uid: z.string().min(1), name: z.string().nullish() })),
  meta: OptionalPagingSchema,
});
