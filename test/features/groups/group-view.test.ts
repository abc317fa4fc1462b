import { describe, expect, it } from 'vitest';
import { assertWithinLimits } from '../../../offline/slack-standin/block-kit-limits.ts';
import type { Group, GroupMember } from '../../../src/cometchat/group-model.ts';
import {
  bannedPageMessage,
  groupCard,
  groupListMessage,
  memberPageMessage,
} from '../../../src/features/groups/group-view.ts';
import type { SlackMessage } from '../../../src/slack/deliver.ts';
import { ACTIONS } from '../../../src/slack/ids.ts';
import { actionButtons, type Button, blocksOf, textOf } from '../../integration/harness.ts';

// The group's card, its pages and the search as Slack shows them: pure, escaped, within Block
// Kit's limits, the buttons only an editor should see.

/** The buttons beside a message's sections (their accessories), in order. */
const accessories = (message: SlackMessage): Button[] =>
  blocksOf({ ...message }).flatMap((b) => (b.accessory ? [b.accessory as Button] : []));

const write = (value: Record<string, unknown>) => JSON.stringify(value);
const pagination = (total: number, perPage = 10, page = 1) => ({
  total,
  count: Math.min(total, perPage),
  per_page: perPage,
  current_page: page,
  total_pages: Math.ceil(total / perPage),
});
const GROUP: Group = {
  guid: 'hiking',
  name: 'Hiking <!channel> *club*',
  type: 'private',
  owner: 'cometchat-uid-1',
  membersCount: 42,
  createdAt: 1_700_000_000,
};
const member = (uid: string, scope: GroupMember['scope'], name = uid): GroupMember => ({
  uid,
  name,
  scope,
  role: 'default',
  joinedAt: 1_700_000_100,
});
const members = Array.from({ length: 10 }, (_, i) =>
  member(`u${i}`, 'participant', `Name ${i} <@U1>`),
);

describe("a group's card", () => {
  const card = (editor: boolean) =>
    groupCard(
      GROUP,
      {
        admins: { members: [member('cometchat-uid-1', 'admin', 'Ana')], pagination: pagination(1) },
        moderators: { members: [], pagination: pagination(0) },
      },
      { write, editor },
    );

  it('names the group, its type, owner, members, leaders and creation, escaped', () => {
    const message = card(true);
    const text = textOf(message);
    expect(text).toContain('`hiking`');
    expect(text).toContain('private');
    expect(text).toContain('*Owner*\n`cometchat-uid-1`');
    expect(text).toContain('*Members*\n42');
    expect(text).toContain('*Admins* (1): *Ana* `cometchat-uid-1`');
    expect(text).toContain('*Moderators*: none');
    expect(text).toContain('<!date^1700000000^');
    // The header is plain text (Slack parses no mention there); everything else is escaped.
    const [head, ...rest] = blocksOf({ ...message });
    expect(head).toMatchObject({ type: 'header', text: { type: 'plain_text', text: GROUP.name } });
    expect(textOf({ ...message, blocks: rest })).not.toContain('<!channel>');
    expect(actionButtons({ ...message }).map((b) => b.action_id)).toEqual([
      ACTIONS.groupMembersPage,
      ACTIONS.groupBannedPage,
      // An editor's: each scope's permissions, in the permission editor.
      ...['admin', 'moderator', 'participant'].map((s) => `${ACTIONS.editScopePermissions}:${s}`),
    ]);
    assertWithinLimits('message', message);
  });

  it("offers a scope's permissions to an editor only", () => {
    const ids = (editor: boolean) => actionButtons({ ...card(editor) }).map((b) => b.action_id);
    expect(ids(false)).toEqual([ACTIONS.groupMembersPage, ACTIONS.groupBannedPage]);
    expect(ids(true)).toContain(`${ACTIONS.editScopePermissions}:participant`);
  });
});

describe("a group's members", () => {
  it('lists a page with an editor’s buttons per member, the filter and the pages', () => {
    const message = memberPageMessage(
      { g: 'hiking', s: 'participant', p: 1 },
      { members, pagination: pagination(25) },
      { write, editor: true },
    );
    const text = textOf(message);
    expect(text).toContain(
      '*Members of `hiking` with scope `participant`*: 25 members, page 1 of 3.',
    );
    expect(text).toContain('*Name 0 &lt;@U1&gt;* `u0` · scope `participant` · role `default`');
    expect(text).not.toContain('<@U1>');
    const ids = actionButtons({ ...message }).map((b) => b.action_id);
    expect(ids.filter((id) => id === ACTIONS.groupMemberScope)).toHaveLength(10);
    expect(ids.filter((id) => id === ACTIONS.groupMemberKick)).toHaveLength(10);
    expect(ids.filter((id) => id === ACTIONS.groupMemberBan)).toHaveLength(10);
    expect(ids.filter((id) => id.startsWith(ACTIONS.groupMembersPage))).toEqual([
      `${ACTIONS.groupMembersPage}_all`,
      `${ACTIONS.groupMembersPage}_admin`,
      `${ACTIONS.groupMembersPage}_moderator`,
      `${ACTIONS.groupMembersPage}_next`,
    ]);
    const next = actionButtons({ ...message }).find((b) => b.action_id.endsWith('_next'));
    expect(JSON.parse(String(next?.value))).toEqual({ g: 'hiking', s: 'participant', p: 2 });
    assertWithinLimits('message', message);
  });

  it('offers a viewer no button that changes a member', () => {
    const message = memberPageMessage(
      { g: 'hiking', p: 3 },
      { members: members.slice(0, 5), pagination: pagination(25) },
      { write, editor: false },
    );
    const ids = actionButtons({ ...message }).map((b) => b.action_id);
    expect(ids.every((id) => id.startsWith(ACTIONS.groupMembersPage))).toBe(true);
    expect(ids).toContain(`${ACTIONS.groupMembersPage}_previous`);
    expect(ids).not.toContain(`${ACTIONS.groupMembersPage}_next`);
  });
});

describe('the banned', () => {
  it('lists them with Unban for an editor, and says when nobody is', () => {
    const message = bannedPageMessage(
      { g: 'hiking', p: 1 },
      { banned: [{ uid: 'troll-1', name: 'Troll' }], pagination: pagination(1) },
      { write, editor: true },
    );
    expect(textOf(message)).toContain('*Troll* `troll-1`');
    const unban = accessories(message).find((b) => b.action_id === ACTIONS.groupMemberUnban);
    expect(JSON.parse(String(unban?.value))).toEqual({ g: 'hiking', u: 'troll-1' });
    const none = bannedPageMessage(
      { g: 'hiking', p: 1 },
      { banned: [], pagination: pagination(0) },
      { write, editor: true },
    );
    expect(textOf(none)).toContain('*Banned from `hiking`*: nobody.');
  });
});

describe('the group search', () => {
  it('lists each group with its Card, and keeps the search on its pages', () => {
    const message = groupListMessage(
      { text: 'hik', type: 'private', page: 1 },
      { groups: [GROUP], pagination: pagination(11) },
      { write },
    );
    const text = textOf(message);
    expect(text).toContain('Groups: guid or name starting with `hik` · private');
    expect(text).toContain('`hiking` · private · 42 members');
    expect(text).not.toContain('<!channel>');
    const next = actionButtons({ ...message }).find(
      (b) => b.action_id === `${ACTIONS.groupsPage}_next`,
    );
    expect(JSON.parse(String(next?.value))).toEqual({ t: 'hik', y: 'private', p: 2 });
    expect(
      textOf(groupListMessage({ page: 1 }, { groups: [], pagination: pagination(0) }, { write })),
    ).toContain('Groups: all groups: none.');
  });
});
