import { z } from 'zod';
import type {
  CallRecord,
  CallSummaryRecord,
  Entity,
  KeyResult,
  Pagination,
  PermissionMap,
  Recording,
  Role,
  Transcription,
  UsageMetrics,
  UserRecord,
} from './schemas.ts';

// The shapes the rest of the app works with: the service's variations (call `data` as an
// object or an array, participant minutes under two names, missing entities) are resolved
// here once, so Block Kit builders never have to know about them.

export type { Pagination, PermissionMap, Recording, Role, Transcription } from './schemas.ts';

export interface RolePage {
  roles: Role[];
  pagination: Pagination;
}

/** A CometChat user, as the app works with it. */
export interface User {
  uid: string;
  /** The uid when the service sent no name. */
  name: string;
  /** Each user has exactly one role; a user the service sent without one has `default`. */
  role: string;
  /** `available` or `offline` (`offline` when the service did not say). */
  status: string;
  avatar?: string | undefined;
  link?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  tags?: string[] | undefined;
  /** Unix seconds. */
  createdAt?: number | undefined;
  updatedAt?: number | undefined;
  lastActiveAt?: number | undefined;
  /** Set while the user is deactivated (suspended, data kept). */
  deactivatedAt?: number | undefined;
}

/** A user's account, as a change, a card and a button's value name it. */
export const AccountSchema = z.enum(['active', 'deactivated']);
export type Account = z.infer<typeof AccountSchema>;

/** A user's account: deactivated while `deactivatedAt` is set. */
export function accountOf(user: Pick<User, 'deactivatedAt'>): Account {
  return user.deactivatedAt === undefined ? 'active' : 'deactivated';
}

export interface UserPage {
  users: User[];
  pagination: Pagination;
}

/** Filters of the user list, as the service takes them (see `listUsers`). */
export interface UserQuery {
  /** A prefix of the uid or the name, whatever the case. */
  searchKey?: string | undefined;
  role?: string | undefined;
  status?: string | undefined;
  /** Only deactivated users (the list leaves them out by default). */
  onlyDeactivated?: boolean | undefined;
  /** Deactivated users as well as the others. */
  withDeactivated?: boolean | undefined;
  page: number;
  perPage: number;
}

/** A page of a user's friends or blocked users (the service's defaults: page 1, 100 a page). */
export interface PageQuery {
  page?: number | undefined;
  perPage?: number | undefined;
}

export interface FriendQuery extends PageQuery {
  /** A prefix of the friend's uid or name. */
  searchKey?: string | undefined;
}

/** Who blocked whom, between two users: a block goes one way. */
export interface Blocks {
  uidBlockedOther: boolean;
  otherBlockedUid: boolean;
}

/** The service's `null`s become absent fields; unknown fields are left behind. */
export function toUser(record: UserRecord): User {
  return {
    uid: record.uid,
    name: record.name || record.uid,
    role: record.role || 'default',
    status: record.status || 'offline',
    avatar: record.avatar ?? undefined,
    link: record.link ?? undefined,
    metadata: record.metadata ?? undefined,
    tags: record.tags ?? undefined,
    createdAt: record.createdAt ?? undefined,
    updatedAt: record.updatedAt ?? undefined,
    lastActiveAt: record.lastActiveAt ?? undefined,
    deactivatedAt: record.deactivatedAt ?? undefined,
  };
}

export interface PermissionUpdate {
  /** The role's full effective permissions, as the service answered them. */
  permissions: PermissionMap;
  /** Per-key results the service added beside the map (seen for `sendMessage`). */
  results: Record<string, KeyResult>;
}

export interface Person {
  uid: string;
  name?: string | undefined;
  avatar?: string | undefined;
}

export interface Participant extends Person {
  isJoined: boolean;
  state?: string | undefined;
  minutes?: number | undefined;
  audioMinutes?: number | undefined;
  videoMinutes?: number | undefined;
  joinedAt?: number | undefined;
  leftAt?: number | undefined;
  deviceId?: string | undefined;
}

export interface Call {
  sessionId: string;
  type?: string | undefined;
  mode?: string | undefined;
  status?: string | undefined;
  receiverType?: string | undefined;
  initiator?: Person | undefined;
  receiver?: Person | undefined;
  initiatedAt?: number | undefined;
  startedAt?: number | undefined;
  endedAt?: number | undefined;
  totalDuration?: string | undefined;
  totalDurationInMinutes?: number | undefined;
  totalAudioMinutes?: number | undefined;
  totalVideoMinutes?: number | undefined;
  totalParticipants: number;
  participants: Participant[];
  hasRecording: boolean;
  recordings: Recording[];
  hasTranscription: boolean;
  transcriptions: Transcription[];
}

/** A call as the call list shows it: counts in place of its participants and recordings. */
export interface CallSummary extends Omit<Call, 'participants' | 'recordings' | 'transcriptions'> {
  /** Participants who never joined (the call rang and they did not answer). */
  neverJoined: number;
}

/** Filters of the call list, as the service takes them (see `listCalls`). */
export interface CallQuery {
  /** Calls this user took part in. */
  uid?: string | undefined;
  status?: string | undefined;
  type?: string | undefined;
  mode?: string | undefined;
  receiverType?: string | undefined;
  hasRecording?: boolean | undefined;
  hasTranscription?: boolean | undefined;
  /** Unix seconds. */
  startedAt?: number | undefined;
  /** Unix seconds. */
  endedAt?: number | undefined;
  page: number;
  perPage: number;
}

/** One page of the call list, newest first. */
export interface CallPage {
  calls: CallSummary[];
  page: number;
  totalPages: number;
  total: number;
}

export function toCall(record: CallRecord): Call {
  return Object.assign(callFacts(record), {
    participants: record.participants.map((p) => ({
      uid: p.uid,
      name: p.name,
      avatar: p.avatar,
      isJoined: joined(p),
      state: p.state,
      minutes: p.totalDurationInMinutes ?? minutesFrom(p.totalDuration),
      audioMinutes: p.totalAudioMinutes,
      videoMinutes: p.totalVideoMinutes,
      joinedAt: p.joinedAt,
      leftAt: p.leftAt,
      deviceId: p.deviceId,
    })),
    recordings: record.recordings,
    transcriptions: record.transcriptions,
  });
}

export function toCallSummary(record: CallSummaryRecord): CallSummary {
  let neverJoined = 0;
  for (const participant of record.participants) if (!joined(participant)) neverJoined += 1;
  return Object.assign(callFacts(record), { neverJoined });
}

/** Whether a participant joined: the service's flag, else whether it gave a joining time. */
function joined(participant: { isJoined?: boolean | undefined; joinedAt?: number | undefined }) {
  return participant.isJoined ?? participant.joinedAt !== undefined;
}

/**
 * What a call and its summary share, read from either record. Its callers add their fields to
 * this object rather than spread it into a new one: spreading its seventeen fields took ten
 * times as long as the rest of a summary (20 against 2 µs a page of ten calls).
 */
function callFacts(record: CallSummaryRecord | CallRecord) {
  const entities = record.data?.entities;
  return {
    sessionId: record.sessionId,
    type: record.type,
    mode: record.mode,
    status: record.status,
    receiverType: record.receiverType,
    initiator: person(record.initiator, entities?.initiator?.entity),
    receiver: person(record.receiver, entities?.receiver?.entity),
    initiatedAt: record.initiatedAt,
    startedAt: record.startedAt,
    endedAt: record.endedAt,
    totalDuration: record.totalDuration,
    totalDurationInMinutes: record.totalDurationInMinutes,
    totalAudioMinutes: record.totalAudioMinutes,
    totalVideoMinutes: record.totalVideoMinutes,
    totalParticipants: record.totalParticipants ?? record.participants.length,
    hasRecording: record.hasRecording ?? record.recordings.length > 0,
    hasTranscription: record.hasTranscription ?? record.transcriptions.length > 0,
  };
}

/**
 * A page of the call list as the app shows it. The page parameters are not documented for this
 * endpoint: a service that ignores `perPage` and answers with more than a page is paged here, and
 * one that sends no `meta` is taken at its word that this is all there is.
 */
export function toCallPage(
  body: { data: CallSummaryRecord[]; meta?: { pagination: ListPagination } | undefined },
  query: Pick<CallQuery, 'page' | 'perPage'>,
): CallPage {
  const records = body.data;
  const pagination = body.meta?.pagination;
  if (records.length > query.perPage) {
    const total = records.length;
    const totalPages = Math.ceil(total / query.perPage);
    const page = Math.min(query.page, totalPages);
    const start = (page - 1) * query.perPage;
    return {
      calls: records.slice(start, start + query.perPage).map(toCallSummary),
      page,
      totalPages,
      total,
    };
  }
  return {
    calls: records.map(toCallSummary),
    page: pagination?.current_page ?? query.page,
    totalPages: pagination?.total_pages ?? (records.length > 0 ? query.page : 0),
    total: pagination?.total ?? records.length,
  };
}

interface ListPagination {
  total: number;
  current_page: number;
  total_pages: number;
}

function person(uid: string | undefined, entity: Entity | undefined): Person | undefined {
  if (!uid && !entity) return undefined;
  return {
    uid: entity?.uid ?? entity?.guid ?? uid ?? '',
    name: entity?.name,
    avatar: entity?.avatar ?? entity?.icon,
  };
}

function minutesFrom(value: number | string | undefined): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
    return Number(value);
  }
  return undefined;
}

export function toPermissionUpdate(data: Record<string, unknown> & { permissions: PermissionMap }) {
  const results: Record<string, KeyResult> = {};
  for (const [key, value] of Object.entries(data)) {
    if (key !== 'permissions' && isKeyResult(value)) {
      results[key] = { success: value.success, message: String(value.message ?? '') };
    }
  }
  return { permissions: data.permissions, results } satisfies PermissionUpdate;
}

function isKeyResult(value: unknown): value is { success: boolean; message?: unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    'success' in value &&
    typeof value.success === 'boolean'
  );
}

/** The time range usage is asked for: Unix seconds, both ends included. */
export interface UsageRange {
  fromDate: number;
  toDate: number;
}

/** An app's usage over a time range; a figure the service did not give is undefined. */
export interface Usage {
  audioMinutes?: number | undefined;
  videoMinutes?: number | undefined;
  recordedMinutes?: number | undefined;
  activeUsers?: number | undefined;
  /** The most users in calls at one moment. */
  concurrentUsers?: number | undefined;
}

export function toUsage(metrics: UsageMetrics): Usage {
  return {
    audioMinutes: metrics.audio_minutes ?? undefined,
    videoMinutes: metrics.video_minutes ?? undefined,
    recordedMinutes: metrics.recorded_minutes ?? undefined,
    activeUsers: metrics.active_users ?? undefined,
    concurrentUsers: metrics.concurrent_users ?? undefined,
  };
}
