import type { SeededCall } from './state.ts';

// Calls of the last seven days, made when the sandbox starts so that a search such as
// `calls cometchat-uid-2 since:2d` finds something whatever the date. Deterministic: the same
// start time and seed number give the same calls (a small seeded PRNG, never Math.random).

/** A user with calls in the last two days in the default seed (and many more before). */
export const RECENT_CALLS_UID = 'cometchat-uid-2';

export interface RecentCallsPlan {
  appId: string;
  region: string;
  /** Who takes part; names are shown in Slack, so some are hostile on purpose. */
  users: readonly { uid: string; name: string }[];
  /** This user starts every third call, so a search for them always finds recent ones. */
  busyUid: string;
  count: number;
  /** Unix seconds: the calls end before it and start at most seven days before it. */
  startedAt: number;
  /** Seeds the PRNG: each seed's calls differ. */
  seedNumber: number;
}

const SEVEN_DAYS = 7 * 86_400;
const TYPES = ['audio', 'video'] as const;
const MODES = ['call', 'meet', 'presenter'] as const;
/** After the two newest (ongoing), the statuses come round in this order. */
const STATUSES = ['ended', 'unanswered', 'ended', 'rejected', 'initiated', 'ended', 'canceled'];

/** mulberry32: a tiny PRNG, good enough to scatter test data. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The generated calls, newest first. */
export function recentCalls(plan: RecentCallsPlan): SeededCall[] {
  const random = prng(plan.seedNumber);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const spacing = Math.floor((SEVEN_DAYS - 3_600) / plan.count);
  const calls: SeededCall[] = [];
  for (let i = 0; i < plan.count; i++) {
    const status = i < 2 ? 'ongoing' : (STATUSES[(i - 2) % STATUSES.length] ?? 'ended');
    const type = TYPES[i % 2] ?? 'audio';
    const mode = MODES[i % 3] ?? 'call';
    const group = mode !== 'call' && i % 2 === 0;
    const initiatedAt = plan.startedAt - 300 - i * spacing - Math.floor(random() * 1_200);
    const initiator =
      i % 3 === 0
        ? (plan.users.find((u) => u.uid === plan.busyUid) ?? pick(plan.users))
        : pick(plan.users);
    const others = plan.users.filter((u) => u.uid !== initiator.uid);
    const invited = group
      ? others.slice(0, 2 + Math.floor(random() * Math.min(7, others.length - 2)))
      : [pick(others)];
    const record = callRecord({
      plan,
      random,
      index: i,
      status,
      type,
      mode,
      group,
      initiatedAt,
      initiator,
      invited,
    });
    calls.push({ shape: i % 2 === 0 ? 'object' : 'array', record });
  }
  return calls;
}

interface CallParts {
  plan: RecentCallsPlan;
  random: () => number;
  index: number;
  status: string;
  type: string;
  mode: string;
  group: boolean;
  initiatedAt: number;
  initiator: { uid: string; name: string };
  invited: readonly { uid: string; name: string }[];
}

function callRecord(parts: CallParts): Record<string, unknown> & { sessionId: string } {
  const { plan, random, status, initiatedAt, initiator, invited } = parts;
  const hex = (parts.index + 1).toString(16).padStart(4, '0');
  const sessionId = `v1.${plan.region}.${plan.appId}.${initiatedAt}recent${hex}`;
  const answered = status === 'ended' || status === 'ongoing';
  const startedAt = answered ? initiatedAt + 3 + Math.floor(random() * 10) : undefined;
  const minutes = answered ? 1 + Math.floor(random() * 40) : 0;
  const ongoing = status === 'ongoing';
  // An ongoing call has no end yet; one that never started ended when it stopped ringing.
  const endedAt = ongoing
    ? undefined
    : answered && startedAt !== undefined
      ? startedAt + minutes * 60
      : status === 'initiated'
        ? undefined
        : initiatedAt + 10 + Math.floor(random() * 40);
  const participants = [
    participant(initiator, {
      joinedAt: initiatedAt + 1,
      leftAt: endedAt,
      state: ongoing ? 'ongoing' : 'ended',
    }),
    ...invited.map((user, n) => {
      // In a group, some never answer; in a 1:1 call the receiver's state is the call's.
      const joins = answered && (!parts.group || n % 4 !== 3);
      if (!joins) {
        const state = status === 'ended' || status === 'ongoing' ? 'unanswered' : status;
        return participant(user, { state });
      }
      const joinedAt = (startedAt ?? initiatedAt) + n * 7;
      // Someone leaves early now and then: the timeline shows it.
      const leftAt =
        endedAt === undefined ? undefined : Math.max(joinedAt, endedAt - (n % 3 === 1 ? 120 : 0));
      return participant(user, { joinedAt, leftAt, state: ongoing ? 'ongoing' : 'ended' });
    }),
  ];
  const recorded = answered && parts.index % 4 === 0;
  const transcribed = answered && parts.index % 5 === 0 && startedAt !== undefined;
  const groupNumber = (parts.index % 3) + 1;
  const group = { guid: `support-group-${groupNumber}`, name: `Support group ${groupNumber}` };
  const receiverUser = invited[0];
  return {
    sessionId,
    mid: `recent-${hex}`,
    initiatedAt,
    ...(startedAt !== undefined ? { startedAt } : {}),
    ...(endedAt !== undefined ? { endedAt } : {}),
    initiator: initiator.uid,
    receiver: parts.group ? group.guid : (receiverUser?.uid ?? ''),
    receiverType: parts.group ? 'group' : 'user',
    mode: parts.mode,
    type: parts.type,
    status,
    totalParticipants: participants.length,
    // An ongoing call has no total yet.
    ...(ongoing
      ? {}
      : {
          totalDurationInMinutes: minutes,
          totalAudioMinutes: parts.type === 'audio' ? minutes : 0,
          totalVideoMinutes: parts.type === 'video' ? minutes : 0,
        }),
    hasRecording: recorded,
    hasTranscription: transcribed,
    participants,
    recordings:
      recorded && startedAt !== undefined
        ? [
            {
              rid: `rec-${hex}`,
              recording_url: `https://recordings-${plan.region}.cometchat.io/${plan.appId}/${sessionId}.mp4`,
              startTime: startedAt,
              endTime: endedAt ?? startedAt + 60,
              duration: minutes,
            },
          ]
        : [],
    transcriptions:
      transcribed && startedAt !== undefined
        ? [
            {
              tid: `tr-${hex}`,
              roomName: sessionId,
              mid: `recent-${hex}`,
              startTime: startedAt,
              endTime: endedAt ?? startedAt + 60,
              transcriptDate: new Date((endedAt ?? startedAt) * 1000).toISOString(),
              transcriptUrl: `https://transcripts-${plan.region}.cometchat.io/${plan.appId}/tr-${hex}.txt`,
            },
          ]
        : [],
    data: {
      entities: {
        initiator: { entity: { uid: initiator.uid, name: initiator.name }, entityType: 'user' },
        receiver: parts.group
          ? { entity: group, entityType: 'group' }
          : { entity: { uid: receiverUser?.uid, name: receiverUser?.name }, entityType: 'user' },
      },
    },
  };
}

function participant(
  user: { uid: string; name: string },
  at: { joinedAt?: number | undefined; leftAt?: number | undefined; state: string },
): Record<string, unknown> {
  const joined = at.joinedAt !== undefined;
  const minutes =
    joined && at.leftAt !== undefined ? Math.round((at.leftAt - (at.joinedAt ?? 0)) / 6) / 10 : 0;
  return {
    uid: user.uid,
    name: user.name,
    isJoined: joined,
    state: at.state,
    totalDurationInMinutes: minutes,
    ...(joined ? { joinedAt: at.joinedAt } : {}),
    ...(at.leftAt !== undefined ? { leftAt: at.leftAt } : {}),
  };
}

/** The default seed's people: a dozen, a few of them with names that must be escaped. */
export const RECENT_USERS = [
  { uid: 'cometchat-uid-1', name: 'Andrew Joseph' },
  { uid: 'cometchat-uid-2', name: 'George Alan' },
  { uid: 'cometchat-uid-3', name: 'Nancy Grace' },
  { uid: 'cometchat-uid-4', name: 'Susan Marie' },
  { uid: 'cometchat-uid-5', name: 'John Paul' },
  { uid: 'cometchat-uid-6', name: '<!channel> Support' },
  { uid: 'cometchat-uid-7', name: '*Bold* _Agent_ ~x~' },
  { uid: 'cometchat-uid-8', name: 'Tom &amp; Jerry <https://evil.example|docs>' },
  { uid: 'cometchat-uid-9', name: 'Zoë 🎧 Müller' },
  { uid: 'cometchat-uid-10', name: 'נועה כהן' },
  { uid: 'cometchat-uid-11', name: '`tick` Tanaka' },
  { uid: 'cometchat-uid-12', name: 'Priya Raman' },
] as const;

/** The second seed's people: others, so two apps' searches differ. */
export const SECOND_RECENT_USERS = [
  { uid: 'prod-agent-1', name: 'Dana Agent' },
  { uid: 'prod-agent-2', name: 'Eli Agent' },
  { uid: 'prod-customer-1', name: 'Fay Customer' },
  { uid: 'prod-customer-2', name: 'Gus Customer' },
  { uid: 'prod-customer-3', name: 'Hal <!here> Customer' },
  { uid: 'prod-customer-4', name: 'Ivy Customer' },
] as const;
