import { describe, expect, it, vi } from 'vitest';
import type { Access } from '../../../src/access/access.ts';
import { createApps } from '../../../src/apps/apps.ts';
import {
  changeOf,
  decodeChange,
  encodeChange,
  type GroupMemberChange,
  subjectOf,
} from '../../../src/changes/change.ts';
import {
  KICK_NO_REVERT,
  kickIrreversible,
  memberScope,
  standingValue,
} from '../../../src/changes/kinds/group-member.ts';
import { kindOf, type Reads } from '../../../src/changes/kinds/index.ts';
import { auditRecord } from '../../../src/changes/record.ts';
import { revertOf } from '../../../src/changes/revert.ts';
import { revertButton, revertLines, revertQuestion } from '../../../src/changes/revert-view.ts';
import {
  type AskedMemberChange,
  memberChangeOf,
  reviewMemberChange,
} from '../../../src/changes/review.ts';
import { changeLine } from '../../../src/changes/views.ts';
import type { CometChatClient } from '../../../src/cometchat/client.ts';
import type { GroupMember, GroupScope } from '../../../src/cometchat/group-model.ts';
import { textOf } from '../../integration/harness.ts';

// A group's member as a kind of change: read back only as a change the app makes, sent as one
// request (a scope, a kick, a ban, an unban), out of date when the member moved meanwhile, and
// reverted where CometChat has the inverse (never a kick).

const GUID = 'hiking';
const UID = 'cometchat-uid-2';
const NOW = 1_790_000_000;

const asked = (key: AskedMemberChange['key'], before: string, after: string) =>
  memberChangeOf(
    'default',
    { guid: GUID, groupName: 'Hiking <!here>', uid: UID, key, before, after },
    'V0VIEW',
  );
const toModerator = asked('scope', 'participant', 'moderator');
const kick = asked('membership', 'member', 'kicked');
const ban = asked('ban', 'none', 'banned');
const unban = asked('ban', 'banned', 'none');

const pagination = (total: number, perPage = 1000) => ({
  total,
  count: total,
  per_page: perPage,
  current_page: 1,
  total_pages: Math.max(1, Math.ceil(total / perPage)),
});

/** A client that records each write and lists `members` and `banned` as CometChat has them. */
function client(members: readonly GroupMember[], banned: readonly string[] = []) {
  const sent: string[] = [];
  const calls = {
    setMemberScope: vi.fn(async (guid: string, uid: string, scope: GroupScope) => {
      sent.push(`scope ${guid} ${uid} ${scope}`);
    }),
    kickGroupMember: vi.fn(async (guid: string, uid: string) => {
      sent.push(`kick ${guid} ${uid}`);
    }),
    banGroupMember: vi.fn(async (guid: string, uid: string) => {
      sent.push(`ban ${guid} ${uid}`);
    }),
    unbanGroupMember: vi.fn(async (guid: string, uid: string) => {
      sent.push(`unban ${guid} ${uid}`);
    }),
    listGroupMembers: vi.fn(
      async (
        _guid: string,
        query: { scopes?: readonly GroupScope[] | undefined; page: number },
      ) => {
        const listed = members.filter((m) => !query.scopes || query.scopes.includes(m.scope));
        return {
          members: query.page === 1 ? [...listed] : [],
          pagination: pagination(listed.length),
        };
      },
    ),
    listBannedMembers: vi.fn(async () => ({
      banned: banned.map((uid) => ({ uid })),
      pagination: pagination(banned.length),
    })),
  };
  return { sent, calls };
}

const member = (scope: GroupScope, uid = UID): GroupMember => ({ uid, scope });

const reads = (listed: ReturnType<typeof client>['calls']): Reads => ({
  store: { getKnownPermissions: async () => undefined },
  app: { name: 'default', cometchat: listed as unknown as Reads['app']['cometchat'] },
});

const recordOf = (change: GroupMemberChange) =>
  auditRecord(
    { app: 'default', change, userId: 'U0EDITOR', teamId: 'T0' },
    { ref: 'ref1', at: NOW * 1000 },
    'applied',
    {},
  );

describe("a group's member, as a kind of change", () => {
  it('carries one key, its role empty, its id apart from every other change', () => {
    expect(toModerator).toMatchObject({
      kind: 'group-member',
      guid: GUID,
      uid: UID,
      role: '',
      changes: [{ key: 'scope', before: 'participant', after: 'moderator' }],
    });
    expect(new Set([toModerator.id, kick.id, ban.id, unban.id]).size).toBe(4);
  });

  it('is read back from Slack and from records as it was written, on its own subject', () => {
    for (const change of [toModerator, kick, ban, unban]) {
      expect(decodeChange(encodeChange(change))).toEqual(change);
      expect(subjectOf(change)).toEqual({ kind: 'group-member', guid: GUID, uid: UID });
      expect(changeOf({ ...recordOf(change), id: change.id })).toMatchObject(change);
    }
  });

  it('is not read back when it is not a change the app makes', () => {
    const forged = (key: string, before: string, after: string, guid = GUID) =>
      decodeChange(
        encodeChange({ ...toModerator, guid, changes: [{ key, before, after, explicit: false }] }),
      );
    expect(forged('scope', 'participant', 'owner')).toBeUndefined();
    expect(forged('scope', 'admin', 'admin')).toBeUndefined();
    expect(forged('membership', 'kicked', 'member')).toBeUndefined();
    expect(forged('ban', 'none', 'none')).toBeUndefined();
    expect(forged('role', 'default', 'vip')).toBeUndefined();
    expect(forged('scope', 'participant', 'admin', 'Not A Guid')).toBeUndefined();
    expect(forged('scope', 'participant', 'admin')).toMatchObject({ kind: 'group-member' });
  });

  it('sends exactly one request: the scope, the kick, the ban or the unban', async () => {
    const expected = [
      [toModerator, `scope ${GUID} ${UID} moderator`],
      [kick, `kick ${GUID} ${UID}`],
      [ban, `ban ${GUID} ${UID}`],
      [unban, `unban ${GUID} ${UID}`],
    ] as const;
    for (const [change, request] of expected) {
      const { sent, calls } = client([]);
      const answer = await kindOf(change).send(calls as never);
      expect(sent).toEqual([request]);
      expect(Object.values(answer.results).map((r) => r.success)).toEqual([true]);
    }
  });

  it('claims the member in the group and says what it did', () => {
    expect(kindOf(toModerator).target).toBe(`group:${GUID}:${UID}`);
    expect(kindOf(toModerator).name).toBe(`member \`${UID}\` of group \`${GUID}\``);
    expect(kindOf(toModerator).done).toBe('scope is now `moderator`');
    expect(kindOf(kick).done).toBe('kicked from the group');
    expect(kindOf(ban).done).toBe('banned from the group');
    expect(kindOf(unban).done).toBe('the ban is lifted');
  });

  it('is still as reviewed only while the member stands where the review saw them', async () => {
    const since = (change: GroupMemberChange, members: GroupMember[], banned: string[] = []) =>
      kindOf(change).sinceReview(reads(client(members, banned).calls));
    expect(await since(toModerator, [member('participant')])).toEqual({
      changed: false,
      has: false,
    });
    expect(await since(toModerator, [member('moderator')])).toEqual({ changed: true, has: true });
    expect(await since(toModerator, [member('admin')])).toEqual({ changed: true, has: false });
    expect(await since(toModerator, [member('participant', 'other')])).toEqual({
      changed: true,
      has: false,
    });
    expect(await since(kick, [member('admin')])).toEqual({ changed: false, has: false });
    expect(await since(kick, [])).toEqual({ changed: true, has: true });
    expect(await since(ban, [member('admin')])).toEqual({ changed: false, has: false });
    expect(await since(ban, [], [UID])).toEqual({ changed: true, has: true });
    expect(await since(unban, [], [UID])).toEqual({ changed: false, has: false });
  });

  it('looks for a member page after page, narrowed to the scopes asked', async () => {
    const listGroupMembers = vi.fn(async (_guid: string, query: { page: number }) => ({
      members: query.page === 2 ? [member('admin')] : [member('participant', `u${query.page}`)],
      pagination: { ...pagination(3), per_page: 1, total_pages: 3 },
    }));
    expect(await memberScope({ listGroupMembers }, GUID, UID, ['admin'])).toBe('admin');
    expect(listGroupMembers).toHaveBeenCalledTimes(2);
    expect(listGroupMembers.mock.calls[0]?.[1]).toMatchObject({ scopes: ['admin'], page: 1 });
    expect(await memberScope({ listGroupMembers }, GUID, 'nobody')).toBeUndefined();
    expect(listGroupMembers).toHaveBeenCalledTimes(5);
  });

  it('reads each key from where the user stands', () => {
    expect(standingValue('scope', { scope: 'admin', banned: false })).toBe('admin');
    expect(standingValue('membership', { scope: undefined, banned: false })).toBe('kicked');
    expect(standingValue('ban', { scope: undefined, banned: true })).toBe('banned');
  });

  it('is one line in a review, a request or a record', () => {
    const line = (change: GroupMemberChange) => {
      const [one] = change.changes;
      if (!one) throw new Error('no key');
      return changeLine(one, 'group-member');
    };
    expect(line(toModerator)).toBe('*Scope in the group* (`scope`): `participant` → *`moderator`*');
    expect(line(kick)).toBe('*Membership* (`membership`): member → *kicked*');
    expect(line(unban)).toBe('*Ban from the group* (`ban`): banned → *none*');
  });
});

describe("a group's member, reverted", () => {
  it('puts a scope back from where it is now, saying what changed since', () => {
    const revert = revertOf(recordOf(toModerator), {
      roles: [],
      defaults: {},
      member: { scope: 'admin', banned: false },
    });
    if (revert.kind !== 'revert') throw new Error(revert.sentence);
    expect(revert.change).toMatchObject({
      kind: 'group-member',
      guid: GUID,
      uid: UID,
      reverts: 'ref1',
      changes: [{ key: 'scope', before: 'admin', after: 'participant' }],
    });
    expect(revert.since).toEqual([{ key: 'scope', set: 'moderator', now: 'admin' }]);
    expect(decodeChange(encodeChange(revert.change))).toEqual(revert.change);
    expect(revertQuestion(recordOf(toModerator), revert)).toContain(
      `give \`${UID}\` in group \`${GUID}\` the scope \`participant\` again?`,
    );
    expect(revertLines(revert).join('\n')).toContain('this change set');
  });

  it('lifts a ban, and bans again after an unban', () => {
    const lifted = revertOf(recordOf(ban), {
      roles: [],
      defaults: {},
      member: { scope: undefined, banned: true },
    });
    expect(lifted).toMatchObject({
      kind: 'revert',
      change: { changes: [{ key: 'ban', before: 'banned', after: 'none' }] },
      since: [],
    });
    const again = revertOf(recordOf(unban), {
      roles: [],
      defaults: {},
      member: { scope: 'participant', banned: false },
    });
    expect(again).toMatchObject({
      kind: 'revert',
      change: { changes: [{ key: 'ban', before: 'none', after: 'banned' }] },
    });
  });

  it('has nothing to put back when the member is there already, or gone', () => {
    const there = revertOf(recordOf(ban), {
      roles: [],
      defaults: {},
      member: { scope: 'participant', banned: false },
    });
    expect(there).toEqual({
      kind: 'none',
      sentence: `\`${UID}\` in group \`${GUID}\` has ban \`none\` already; nothing to put back.`,
    });
    const gone = revertOf(recordOf(toModerator), {
      roles: [],
      defaults: {},
      member: { scope: undefined, banned: false },
    });
    expect(gone.kind === 'none' && gone.sentence).toContain('is not a member now');
  });

  it('has no Revert of a kick: the member must be added back by the group or the app', () => {
    const record = recordOf(kick);
    expect(kickIrreversible(record)).toBe(KICK_NO_REVERT);
    expect(KICK_NO_REVERT).toContain('POST /groups/{guid}/members');
    expect(
      revertOf(record, { roles: [], defaults: {}, member: { scope: undefined, banned: false } }),
    ).toEqual({ kind: 'none', sentence: `${KICK_NO_REVERT} Nothing was sent.` });
    expect(revertButton((v) => JSON.stringify(v), record)).toBeUndefined();
    expect(revertButton((v) => JSON.stringify(v), recordOf(ban))).toBeDefined();
  });
});

describe("a group member's review", () => {
  const apps = createApps([
    {
      name: 'default',
      appId: 'a',
      region: 'us',
      apiKey: 'k',
      cometchat: {} as CometChatClient,
      access: {} as Access,
    },
  ]);
  const app = apps.byName('default');
  if (!app) throw new Error('no app');
  const review = (key: AskedMemberChange['key'], before: string, after: string) =>
    reviewMemberChange(
      apps,
      app,
      { guid: GUID, groupName: 'Hiking <!here>', uid: UID, key, before, after },
      'V0VIEW',
    );

  it('asks the one question, the group name escaped, and carries the change signed', () => {
    const view = review('scope', 'participant', 'moderator');
    const text = textOf(view);
    expect(text).toContain(
      `Change the scope of \`${UID}\` in *Hiking &lt;!here&gt;* \`${GUID}\` from \`participant\` to \`moderator\`?`,
    );
    expect(text).not.toContain('<!here>');
    expect(
      decodeChange(
        String(view.private_metadata).slice(String(view.private_metadata).indexOf('.') + 1),
      ),
    ).toMatchObject({
      kind: 'group-member',
      changes: [{ key: 'scope', after: 'moderator' }],
    });
  });

  it("says a kick's record will have no Revert, and why", () => {
    const text = textOf(review('membership', 'member', 'kicked'));
    expect(text).toContain(`Kick \`${UID}\``);
    expect(text).toContain(`Its record will have no _Revert_: ${KICK_NO_REVERT}`);
    expect(textOf(review('ban', 'none', 'banned'))).not.toContain('no _Revert_');
  });
});
