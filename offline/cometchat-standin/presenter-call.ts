import type { CallRecord } from './state.ts';

// A presenter-mode call large enough to exercise truncation and paging of participant lists
// (Slack caps blocks and text lengths). Generated rather than written out: 300 hand-written
// participants would be noise. Everything derives from the participant index, so the output is
// the same on every run and every machine.

const INITIATED_AT = 1700018000;
const STARTED_AT = INITIATED_AT + 30;
const ENDED_AT = STARTED_AT + 3600;
const PRESENTERS = ['cometchat-uid-1', 'cometchat-uid-3', 'cometchat-uid-5'] as const;
const PRESENTER_NAMES = ['Andrew Joseph', 'Nancy Grace', 'John Paul'] as const;

/** A deterministic number in [0, 1) for an index and a salt (a 32-bit integer hash). */
export function noise(index: number, salt: number): number {
  let h = Math.imul(index + 1, 0x9e3779b1) ^ Math.imul(salt + 1, 0x85ebca6b);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

const minutes = (seconds: number): number => Math.round((seconds / 60) * 100) / 100;

type Participant = Record<string, unknown>;

function presenter(index: number): Participant {
  const uid = PRESENTERS[index] ?? `presenter-${index + 1}`;
  const joinedAt = STARTED_AT - 20 + index * 5;
  const duration = minutes(ENDED_AT - joinedAt);
  return {
    uid,
    name: PRESENTER_NAMES[index] ?? uid,
    avatar: `https://data-us.cometchat.io/assets/images/avatars/${uid}.webp`,
    isJoined: true,
    deviceId: deviceId(index),
    joinedAt,
    leftAt: ENDED_AT,
    totalAudioMinutes: duration,
    totalVideoMinutes: duration,
    totalDurationInMinutes: duration,
    // The initiator carries no state, as on the live service.
    ...(index === 0 ? {} : { state: 'ended' }),
  };
}

/**
 * Viewers cycle through every outcome an ended call can hold; some lack a name or an avatar,
 * and every fourth reports its minutes as `totalDuration` (a number), like older versions.
 */
function viewer(index: number): Participant {
  const number = String(index + 1).padStart(3, '0');
  const uid = `viewer-${number}`;
  const identity: Participant = { uid };
  if (index % 7 !== 3) identity.name = `Viewer ${number}`;
  if (index % 5 !== 2)
    identity.avatar = `https://data-us.cometchat.io/assets/images/avatars/${uid}.webp`;
  const outcome = noise(index, 1);
  const durationKey = index % 4 === 1 ? 'totalDuration' : 'totalDurationInMinutes';
  if (outcome < 0.12) {
    const state = outcome < 0.08 ? 'unanswered' : 'rejected';
    return {
      ...identity,
      isJoined: false,
      totalAudioMinutes: 0,
      totalVideoMinutes: 0,
      [durationKey]: 0,
      state,
    };
  }
  const joinedAt = STARTED_AT + Math.floor(noise(index, 2) * 1200);
  const leftAt = Math.min(ENDED_AT, joinedAt + 300 + Math.floor(noise(index, 3) * 3000));
  const duration = minutes(leftAt - joinedAt);
  return {
    ...identity,
    isJoined: true,
    deviceId: deviceId(PRESENTERS.length + index),
    joinedAt,
    leftAt,
    totalAudioMinutes: duration,
    totalVideoMinutes: duration,
    [durationKey]: duration,
    // A few viewers dropped without the service recording a state.
    ...(outcome > 0.97 ? {} : { state: 'ended' }),
  };
}

/** `uuid@host/resource`, the form the live service reports. */
function deviceId(index: number): string {
  // Four hex digits per draw: a draw has 32 bits, so longer runs would end in zeros.
  const hex = (salt: number, length: number): string =>
    Array.from({ length: Math.ceil(length / 4) }, (_, part) =>
      Math.floor(noise(index, salt * 8 + part) * 0x10000)
        .toString(16)
        .padStart(4, '0'),
    )
      .join('')
      .slice(0, length);
  const resource = ['web', 'ios', 'android', 'desktop'][index % 4] ?? 'web';
  const uuid = `${hex(10, 8)}-${hex(11, 4)}-4${hex(12, 3)}-a${hex(13, 3)}-${hex(14, 12)}`;
  return `${uuid}@rtc-us.cometchat.io/${resource}-${hex(15, 4)}`;
}

export function generatePresenterCall(sessionId: string, participantCount = 300): CallRecord {
  const presenters = PRESENTERS.map((_, index) => presenter(index));
  const viewers = Array.from({ length: participantCount - presenters.length }, (_, index) =>
    viewer(index),
  );
  const participants = [...presenters, ...viewers];
  const audioMinutes = participants.reduce(
    (sum, p) => sum + (typeof p.totalAudioMinutes === 'number' ? p.totalAudioMinutes : 0),
    0,
  );
  return {
    sessionId,
    totalAudioMinutes: Math.round(audioMinutes * 100) / 100,
    totalVideoMinutes: Math.round(audioMinutes * 100) / 100,
    totalDuration: '01:00:00',
    totalDurationInMinutes: 60,
    hasRecording: false,
    initiatedAt: INITIATED_AT,
    startedAt: STARTED_AT,
    endedAt: ENDED_AT,
    initiator: PRESENTERS[0],
    receiver: 'all-hands',
    receiverType: 'group',
    mode: 'presenter',
    type: 'video',
    status: 'ended',
    totalParticipants: participants.length,
    tags: ['all-hands'],
    participants,
    data: {
      entities: {
        initiator: {
          entity: {
            uid: PRESENTERS[0],
            name: PRESENTER_NAMES[0],
            avatar: `https://data-us.cometchat.io/assets/images/avatars/${PRESENTERS[0]}.webp`,
          },
          entityType: 'user',
        },
        receiver: {
          entity: { guid: 'all-hands', name: 'All hands', type: 'public', membersCount: 412 },
          entityType: 'group',
        },
      },
    },
  };
}
