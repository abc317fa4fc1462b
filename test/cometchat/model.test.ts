import { describe, expect, it } from 'vitest';
import { loadSeed } from '../../offline/cometchat-standin/server.ts';
import {
  toCall,
  toCallPage,
  toCallSummary,
  toPermissionUpdate,
} from '../../src/cometchat/model.ts';
import {
  CallRecordSchema,
  CallResponseSchema,
  CallSummaryRecordSchema,
  ErrorBodySchema,
  PermissionUpdateResponseSchema,
  RoleListResponseSchema,
  RoleSchema,
} from '../../src/cometchat/schemas.ts';

// The schemas accept every shape the reference and the live notes describe (and fields they do
// not), and the model resolves the variations once. Records are parsed first, as the client does.

const call = (record: unknown) => toCall(CallRecordSchema.parse(record));

describe('roles', () => {
  it('parses a role list with pagination, keeping unknown fields', () => {
    const body = RoleListResponseSchema.parse({
      data: [
        {
          role: 'default',
          name: 'Default',
          description: 'Default role',
          metadata: { tier: 1 },
          settings: { listUsers: 'all', sendMessagesTo: 'friendsOnly' },
          createdAt: 1_700_000_000,
          updatedAt: 1_700_000_100,
          color: 'blue',
        },
      ],
      meta: {
        pagination: { total: 1, count: 1, per_page: 100, current_page: 1, total_pages: 1 },
        cursor: {},
      },
    });
    expect(body.data[0]).toMatchObject({ role: 'default', color: 'blue', metadata: { tier: 1 } });
    expect(body.meta.pagination.per_page).toBe(100);
  });

  it('fills a missing name or description with an empty text', () => {
    expect(RoleSchema.parse({ role: 'x' })).toEqual({ role: 'x', name: '', description: '' });
  });

  it('rejects a role without an id, and a pagination that cannot be right', () => {
    expect(RoleSchema.safeParse({ name: 'No id' }).success).toBe(false);
    expect(RoleSchema.safeParse({ role: '' }).success).toBe(false);
    expect(RoleSchema.safeParse({ role: 'x', createdAt: -1 }).success).toBe(false);
    const page = (pagination: Record<string, unknown>) =>
      RoleListResponseSchema.safeParse({ data: [], meta: { pagination } }).success;
    const good = { total: 0, count: 0, per_page: 100, current_page: 1, total_pages: 0 };
    expect(page(good)).toBe(true);
    expect(page({ ...good, per_page: 0 })).toBe(false);
    expect(page({ ...good, current_page: 1.5 })).toBe(false);
    expect(page({ ...good, total: undefined })).toBe(false);
  });

  it('parses every seeded role', () => {
    const roles = loadSeed().roles;
    for (const role of roles) expect(RoleSchema.safeParse(role).success).toBe(true);
  });
});

describe('permission updates', () => {
  it('keeps the full map and collects the per-key results beside it', () => {
    const body = PermissionUpdateResponseSchema.parse({
      data: {
        permissions: {
          sendMessage: 'deny',
          'sendMessage.allowedMessageTypes': ['text'],
          'listUsers.allowedRoles': null,
          flagMessage: 'allow',
        },
        sendMessage: { success: true, message: 'Permission sendMessage is mapped to the role.' },
        editMessage: { success: false },
        somethingElse: 42,
      },
    });
    const update = toPermissionUpdate(body.data);
    expect(update.permissions).toEqual({
      sendMessage: 'deny',
      'sendMessage.allowedMessageTypes': ['text'],
      'listUsers.allowedRoles': null,
      flagMessage: 'allow',
    });
    expect(update.results).toEqual({
      sendMessage: { success: true, message: 'Permission sendMessage is mapped to the role.' },
      editMessage: { success: false, message: '' },
    });
  });

  it('rejects a map with a value that is not a permission value', () => {
    const parse = (permissions: unknown) =>
      PermissionUpdateResponseSchema.safeParse({ data: { permissions } }).success;
    expect(parse({ sendMessage: 'allow' })).toBe(true);
    expect(parse({ sendMessage: 1 })).toBe(false);
    expect(parse({ 'sendMessage.allowedMessageTypes': ['text', 2] })).toBe(false);
    expect(parse(['sendMessage'])).toBe(false);
    expect(PermissionUpdateResponseSchema.safeParse({ data: {} }).success).toBe(false);
  });
});

describe('calls', () => {
  const reference = {
    sessionId: 'v1.us.app.1',
    totalAudioMinutes: 1.5,
    totalVideoMinutes: 0,
    totalDuration: '00:01:30',
    totalDurationInMinutes: 1.5,
    hasRecording: false,
    initiatedAt: 1_700_000_000,
    initiator: 'u1',
    receiver: 'u2',
    receiverType: 'user',
    mode: 'call',
    type: 'audio',
    status: 'initiated',
    totalParticipants: 2,
    participants: [
      {
        uid: 'u1',
        name: 'One',
        avatar: 'https://a.example/1.png',
        isJoined: true,
        totalAudioMinutes: 1.5,
        totalVideoMinutes: 0,
        totalDurationInMinutes: 1.5,
      },
      { uid: 'u2', name: 'Two', isJoined: false, state: 'unanswered' },
    ],
    data: {
      entities: {
        initiator: { entity: { uid: 'u1', name: 'One', avatar: 'https://a.example/1.png' } },
        receiver: { entity: { uid: 'u2', name: 'Two', avatar: 'https://a.example/2.png' } },
      },
    },
  };

  it('accepts data as a one-element array and as a single object', () => {
    const asArray = CallResponseSchema.parse({ data: [reference] });
    const asObject = CallResponseSchema.parse({ data: reference });
    expect(Array.isArray(asArray.data)).toBe(true);
    expect(Array.isArray(asObject.data)).toBe(false);
    expect(CallResponseSchema.safeParse({ data: 'oops' }).success).toBe(false);
  });

  it('maps the reference record', () => {
    const result = call(reference);
    expect(result).toMatchObject({
      sessionId: 'v1.us.app.1',
      type: 'audio',
      mode: 'call',
      status: 'initiated',
      totalDuration: '00:01:30',
      totalParticipants: 2,
      hasRecording: false,
      recordings: [],
      initiator: { uid: 'u1', name: 'One', avatar: 'https://a.example/1.png' },
      receiver: { uid: 'u2', name: 'Two', avatar: 'https://a.example/2.png' },
    });
    expect(result.participants[0]).toMatchObject({ uid: 'u1', isJoined: true, minutes: 1.5 });
    expect(result.participants[1]).toMatchObject({
      uid: 'u2',
      isJoined: false,
      state: 'unanswered',
    });
    expect(result.participants[1]?.minutes).toBeUndefined();
  });

  it('reads participant minutes under either name', () => {
    const result = call({
      sessionId: 's',
      participants: [
        { uid: 'a', totalDurationInMinutes: 3 },
        { uid: 'b', totalDuration: 4.25 },
        { uid: 'c', totalDuration: '5.5' },
        { uid: 'd', totalDuration: '00:05:00' },
        { uid: 'e', totalDuration: ' ' },
        { uid: 'f', totalDurationInMinutes: 2, totalDuration: 9 },
      ],
    });
    expect(result.participants.map((p) => p.minutes)).toEqual([
      3,
      4.25,
      5.5,
      undefined,
      undefined,
      2,
    ]);
  });

  it('takes a participant as joined when it has a join time but no isJoined', () => {
    const result = call({
      sessionId: 's',
      participants: [
        { uid: 'a', joinedAt: 1_700_000_000, leftAt: 1_700_000_060, deviceId: 'x@host/web' },
        { uid: 'b' },
        { uid: 'c', isJoined: false, joinedAt: 1_700_000_000 },
      ],
    });
    expect(result.participants.map((p) => p.isJoined)).toEqual([true, false, false]);
    expect(result.participants[0]).toMatchObject({ leftAt: 1_700_000_060, deviceId: 'x@host/web' });
  });

  it('summarises a call for the list with the same facts and joins, participants counted', () => {
    const record = {
      ...reference,
      hasRecording: undefined,
      recordings: [{ rid: 'r1' }],
      participants: [
        ...reference.participants,
        { uid: 'c', joinedAt: 1_700_000_000 },
        { uid: 'd', isJoined: false, joinedAt: 1_700_000_000 },
      ],
    };
    const summary = toCallSummary(CallSummaryRecordSchema.parse(record));
    const full = call(record);
    const { participants, recordings, transcriptions, ...facts } = full;
    expect(summary).toEqual({
      ...facts,
      neverJoined: participants.filter((p) => !p.isJoined).length,
    });
    expect(summary).toMatchObject({ neverJoined: 2, totalParticipants: 2, hasRecording: true });
    expect(recordings).toHaveLength(1);
    expect(transcriptions).toEqual([]);
  });

  it('falls back to the uids when the entities are missing', () => {
    const result = call({ sessionId: 's', initiator: 'u1', receiver: 'u2', participants: [] });
    expect(result.initiator).toEqual({ uid: 'u1', name: undefined, avatar: undefined });
    expect(result.receiver).toEqual({ uid: 'u2', name: undefined, avatar: undefined });
    expect(call({ sessionId: 's' }).initiator).toBeUndefined();
  });

  it('shows a group receiver by its guid, name and icon', () => {
    const result = call({
      sessionId: 's',
      receiver: 'product-launch',
      receiverType: 'group',
      data: {
        entities: {
          receiver: { entity: { guid: 'product-launch', name: 'Launch', icon: 'https://i/x.png' } },
        },
      },
    });
    expect(result.receiver).toEqual({
      uid: 'product-launch',
      name: 'Launch',
      avatar: 'https://i/x.png',
    });
  });

  it('counts the participants when totalParticipants is missing', () => {
    const result = call({ sessionId: 's', participants: [{ uid: 'a' }, { uid: 'b' }] });
    expect(result.totalParticipants).toBe(2);
    expect(result.participants).toHaveLength(2);
  });

  it('has a recording when recordings are there, even without hasRecording', () => {
    const recording = {
      rid: 'r1',
      recording_url: 'https://rec.example/r1.mp4',
      startTime: 1_700_000_000,
      endTime: 1_700_000_300,
      duration: 5,
    };
    const implied = call({ sessionId: 's', recordings: [recording] });
    expect(implied.hasRecording).toBe(true);
    expect(implied.recordings).toEqual([recording]);
    expect(call({ sessionId: 's', hasRecording: true }).hasRecording).toBe(true);
    expect(call({ sessionId: 's' }).hasRecording).toBe(false);
  });

  it('keeps the fields the live service added', () => {
    const result = call({
      sessionId: 's',
      startedAt: 1_700_000_001,
      endedAt: 1_700_000_601,
      mid: 'm1',
      tags: ['x'],
    });
    expect(result).toMatchObject({ startedAt: 1_700_000_001, endedAt: 1_700_000_601 });
  });

  it('rejects a record that cannot be shown', () => {
    expect(CallRecordSchema.safeParse({ participants: [] }).success).toBe(false);
    expect(CallRecordSchema.safeParse({ sessionId: 's', participants: [{}] }).success).toBe(false);
    expect(CallRecordSchema.safeParse({ sessionId: 's', initiatedAt: -5 }).success).toBe(false);
    expect(CallRecordSchema.safeParse({ sessionId: 's', recordings: [{ url: 'x' }] }).success).toBe(
      false,
    );
  });

  it('parses every seeded call', () => {
    for (const seeded of loadSeed().calls.values()) {
      const parsed = CallRecordSchema.safeParse(seeded.record);
      expect(parsed.success, seeded.record.sessionId).toBe(true);
      if (parsed.success) expect(toCall(parsed.data).sessionId).toBe(seeded.record.sessionId);
    }
  });
});

describe('error bodies', () => {
  it('reads the documented error shape, with or without details', () => {
    const body = ErrorBodySchema.parse({
      error: {
        message: 'Failed to validate the data sent with the request.',
        devMessage: 'Check the details.',
        source: 'ERROR_HANDLER',
        code: 'ERR_BAD_REQUEST',
        details: { perPage: ['The perPage must be a positive integer.'] },
      },
    });
    expect(body.error.code).toBe('ERR_BAD_REQUEST');
    expect(body.error.details).toHaveProperty('perPage');
    expect(ErrorBodySchema.safeParse({ error: { code: 'X' } }).success).toBe(true);
    expect(ErrorBodySchema.safeParse({ message: 'no error member' }).success).toBe(false);
  });
});

describe('toCallPage', () => {
  const record = (i: number) => ({
    sessionId: `s-${i}`,
    participants: [],
    recordings: [],
    transcriptions: [],
  });
  const records = (n: number) => Array.from({ length: n }, (_, i) => record(i + 1));
  const ids = (page: { calls: { sessionId: string }[] }) => page.calls.map((c) => c.sessionId);

  it('takes the page as the service paged it, with or without per_page', () => {
    const page = toCallPage(
      {
        data: records(2),
        meta: { pagination: { total: 12, current_page: 2, total_pages: 6 } },
      },
      { page: 2, perPage: 2 },
    );
    expect(page).toMatchObject({ page: 2, totalPages: 6, total: 12 });
    expect(ids(page)).toEqual(['s-1', 's-2']);
  });

  it('pages a list itself when the service ignored the page size', () => {
    const body = {
      data: records(25),
      meta: { pagination: { total: 25, current_page: 1, total_pages: 1 } },
    };
    const second = toCallPage(body, { page: 2, perPage: 10 });
    expect(second).toMatchObject({ page: 2, totalPages: 3, total: 25 });
    expect(ids(second)).toEqual(
      records(25)
        .slice(10, 20)
        .map((r) => r.sessionId),
    );
    // Past the end: the last page, not an empty one that looks like "no calls".
    expect(toCallPage(body, { page: 9, perPage: 10 })).toMatchObject({ page: 3 });
  });

  it('takes a list without meta as all there is', () => {
    expect(toCallPage({ data: records(3) }, { page: 1, perPage: 10 })).toMatchObject({
      page: 1,
      totalPages: 1,
      total: 3,
    });
    expect(toCallPage({ data: [] }, { page: 1, perPage: 10 })).toMatchObject({
      totalPages: 0,
      total: 0,
    });
  });

  it('carries transcriptions, and says there are some when the flag is missing', () => {
    const call = toCall(
      CallRecordSchema.parse({
        sessionId: 's',
        transcriptions: [{ tid: 't1', transcriptDate: '2026-11-20T10:00:00Z' }],
      }),
    );
    expect(call.hasTranscription).toBe(true);
    expect(call.transcriptions).toEqual([{ tid: 't1', transcriptDate: '2026-11-20T10:00:00Z' }]);
  });
});
