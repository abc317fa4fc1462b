import { describe, expect, it } from 'vitest';
import { SANDBOX_GROUP_IDS } from '../../offline/cometchat-standin/account-seed.ts';
import type { StoredView } from '../../offline/slack-standin/web-api.ts';
import { currentView, modalShown, submitView } from '../../offline/stack/editor-steps.ts';
import { KICK_NO_REVERT } from '../../src/changes/kinds/group-member.ts';
import { SCOPE_PROBLEM } from '../../src/features/groups/group-words.ts';
import { REFUSALS } from '../../src/replies/refusals.ts';
import { ACTIONS, CALLBACKS } from '../../src/slack/ids.ts';
import { createMemoryStore, type Store } from '../../src/store/store.ts';
import {
  actionButtons,
  type Button,
  blocksOf,
  commandReply,
  commandText,
  type Harness,
  textOf,
} from './harness.ts';
import {
  apply,
  auditList,
  newest,
  revertIn,
  revertReview,
  reviewOf,
  writes,
} from './revert-steps.ts';
import { driverAs, useHarnessStarter } from './support.ts';

// Groups through the real app, against the stand-in's seeded groups: the card and its pages
// (members by scope, the banned), the search, "Look up group"; a member's scope change, kick,
// ban and unban on the change road (reviewed, sent once, audited, reverted where CometChat has
// the inverse); and bad input, which gets one sentence and sends nothing.

const {
  hiking: HIKING,
  townHall: TOWN_HALL,
  townHallMembers: TOWN_HALL_MEMBERS,
  hikingOwner: OWNER,
  hikingModerator: MODERATOR,
  deniedByScope: PARTICIPANT,
  bannedFromHiking: BANNED,
  notMember: NOT_MEMBER,
} = SANDBOX_GROUP_IDS;
const EDITORS = { EDITORS: 'U0OPERATOR,U0LEAD' };

/** The buttons beside a message's sections (their accessories), in order. */
function accessories(payload: Record<string, unknown>): Button[] {
  return blocksOf(payload).flatMap((b) => {
    const accessory = b.accessory as Button | undefined;
    return b.type === 'section' && accessory?.action_id ? [accessory] : [];
  });
}

/** Clicks `button` (in a message at a response_url) as the operator: the next reply posted. */
async function clickForReply(h: Harness, button: Button | undefined) {
  if (!button?.value) throw new Error('no such button');
  const before = h.slack.responses.length;
  const driver = driverAs(h, 'U0OPERATOR');
  await driver.interaction(
    driver.blockAction({
      actionId: button.action_id,
      value: button.value,
      responseUrl: h.slack.responseUrl(),
    }),
  );
  return (await h.slack.nextResponse(before)).body;
}

/** Clicks `button` as the operator: the modal it opens, once filled in. */
async function clickIntoModal(h: Harness, button: Button | undefined): Promise<StoredView> {
  if (!button?.value) throw new Error('no such button');
  const mark = h.slack.calls.length;
  const driver = driverAs(h, 'U0OPERATOR');
  await driver.interaction(driver.blockAction({ actionId: button.action_id, value: button.value }));
  return modalShown(h, mark);
}

/** The member's button in a members page (each member has its own actions block). */
function memberButton(page: Record<string, unknown>, uid: string, actionId: string) {
  return actionButtons(page).find(
    (b) => b.action_id === actionId && b.value?.includes(`"u":"${uid}"`),
  );
}

const scopeOf = (h: Harness, guid: string, uid: string) =>
  h.sandbox.state.accounts.members.get(guid)?.get(uid)?.scope;
const bannedIn = (h: Harness, guid: string, uid: string) =>
  h.sandbox.state.accounts.bans.get(guid)?.has(uid) ?? false;

describe('groups', () => {
  const start = useHarnessStarter();
  let store: Store;
  const withEditors = (env: Record<string, string> = {}) => {
    store = createMemoryStore();
    return start({ store, env: { ...EDITORS, ...env } });
  };

  it('shows the card: name, type, owner, members, admins and moderators, created', async () => {
    const h = await withEditors();
    const card = await commandReply(h, `group ${HIKING}`);
    const text = textOf(card);
    expect(text).toContain('Hiking club');
    expect(text).toContain(`*Guid*\n\`${HIKING}\``);
    expect(text).toContain('*Type*\nprivate');
    expect(text).toContain(`*Owner*\n\`${OWNER}\``);
    expect(text).toContain('*Members*\n5');
    expect(text).toContain(`*Admins* (1): *Andrew Joseph* \`${OWNER}\``);
    expect(text).toContain(`*Moderators* (1): *Nancy Grace* \`${MODERATOR}\``);
    expect(text).toContain('*Created*\n<!date^1700100000^');
    expect(actionButtons(card).map((b) => b.action_id)).toEqual([
      ACTIONS.groupMembersPage,
      ACTIONS.groupBannedPage,
      // An editor's: each scope's permissions, in the permission editor.
      ...['admin', 'moderator', 'participant'].map((s) => `${ACTIONS.editScopePermissions}:${s}`),
    ]);
    expect(writes(h)).toEqual([]);
  });

  it('pages the members, filtered by scope, and the banned', async () => {
    const h = await withEditors();
    const card = await commandReply(h, `group ${TOWN_HALL}`);
    const members = await clickForReply(h, actionButtons(card)[0]);
    expect(textOf(members)).toContain(
      `*Members of \`${TOWN_HALL}\`*: ${TOWN_HALL_MEMBERS} members, page 1 of 3.`,
    );
    const listed = (page: Record<string, unknown>) =>
      [...textOf(page).matchAll(/`([a-z0-9_-]+)` · scope `([a-z]+)`/g)].map((m) => m[2]);
    expect(listed(members)).toHaveLength(10);
    const next = actionButtons(members).find((b) => b.action_id.endsWith('_next'));
    const second = await clickForReply(h, next);
    expect(textOf(second)).toContain('page 2 of 3.');
    expect(second.replace_original).toBe(true);
    const moderators = await clickForReply(
      h,
      actionButtons(members).find((b) => b.action_id === `${ACTIONS.groupMembersPage}_moderator`),
    );
    expect(textOf(moderators)).toContain(`with scope \`moderator\`*: 3 members, page 1 of 1.`);
    expect(new Set(listed(moderators))).toEqual(new Set(['moderator']));
    // The same list from the command, and the banned from the card.
    const admins = await commandReply(h, `group ${TOWN_HALL} members scope:admin`);
    expect(new Set(listed(admins))).toEqual(new Set(['admin']));
    expect(listed(admins)).toHaveLength(2);
    const hiking = await commandReply(h, `group ${HIKING}`);
    const banned = await clickForReply(h, actionButtons(hiking)[1]);
    expect(textOf(banned)).toContain(`*Banned from \`${HIKING}\`*: 1 user, page 1 of 1.`);
    expect(textOf(banned)).toContain(`\`${BANNED}\``);
    expect(accessories(banned).map((b) => b.action_id)).toEqual([ACTIONS.groupMemberUnban]);
    // A viewer sees the members and none of the buttons that change them.
    const viewer = await commandReply(h, `group ${HIKING} members`, driverAs(h, 'U0VIEWER'));
    expect(listed(viewer)).toHaveLength(5);
    expect(memberButton(viewer, PARTICIPANT, ACTIONS.groupMemberKick)).toBeUndefined();
    expect(writes(h)).toEqual([]);
  });

  it('finds groups by the start of their guid or name, and by type', async () => {
    const h = await withEditors();
    const found = await commandText(h, 'groups town');
    expect(found).toContain('Groups: guid or name starting with `town`');
    expect(found).toContain(`\`${TOWN_HALL}\` · private`);
    expect(found).not.toContain(`\`${HIKING}\``);
    const publicOnes = await commandText(h, 'groups type:public');
    expect(publicOnes).toContain('`support-lobby`');
    expect(publicOnes).not.toContain(`\`${HIKING}\``);
  });

  it('"Look up group" on a message shows the card of each guid it names, and says when none', async () => {
    const h = await withEditors();
    const before = h.slack.responses.length;
    await h.driver.interaction(
      h.driver.messageShortcut({
        callbackId: CALLBACKS.lookupGroupMessage,
        message: { text: 'Nobody can post in town-hall, see ticket-77', ts: '1.000001' },
      }),
    );
    const card = await h.slack.nextResponse(before);
    expect(textOf(card.body)).toContain(`*Guid*\n\`${TOWN_HALL}\``);
    const none = h.slack.responses.length;
    await h.driver.interaction(
      h.driver.messageShortcut({
        callbackId: CALLBACKS.lookupGroupMessage,
        message: { text: 'ticket-77 is about lunch', ts: '1.000002' },
      }),
    );
    const said = await h.slack.nextResponse(none);
    expect(textOf(said.body)).toContain(
      'No CometChat group is named in that message (looked for `ticket-77`)',
    );
  });

  it('changes a scope once after review (picked on the list), audits it, and reverts it', async () => {
    const h = await withEditors();
    const page = await commandReply(h, `group ${HIKING} members`);
    const picker = await clickIntoModal(
      h,
      memberButton(page, PARTICIPANT, ACTIONS.groupMemberScope),
    );
    expect(picker.callback_id).toBe(CALLBACKS.groupScopePick);
    expect(textOf(picker)).toContain(`\`${PARTICIPANT}\` has scope \`participant\``);
    const answer = await submitView(h, picker, {
      group_scope: { scope: { type: 'static_select', selected_option: { value: 'moderator' } } },
    });
    expect(answer.response_action).toBe('update');
    const review = currentView(h, picker.id);
    expect(textOf(review)).toContain(
      `Change the scope of \`${PARTICIPANT}\` in *Hiking club* \`${HIKING}\` from \`participant\` to \`moderator\`?`,
    );
    expect(writes(h)).toEqual([]);
    const outcome = await apply(h, review);
    expect(outcome).toContain('scope is now `moderator`');
    expect(writes(h)).toEqual([`PUT /v3/groups/${HIKING}/members/${PARTICIPANT}`]);
    expect(scopeOf(h, HIKING, PARTICIPANT)).toBe('moderator');
    // Submitted again: not sent again.
    expect(await apply(h, review)).toContain('it was not sent again');
    expect(writes(h)).toHaveLength(1);
    const record = await newest(store);
    expect(record).toMatchObject({
      outcome: 'applied',
      userId: 'U0OPERATOR',
      role: '',
      subject: { kind: 'group-member', guid: HIKING, uid: PARTICIPANT },
      changes: [{ key: 'scope', before: 'participant', after: 'moderator' }],
    });
    const revert = await revertReview(h, record.ref);
    expect(textOf(revert)).toContain(
      `give \`${PARTICIPANT}\` in group \`${HIKING}\` the scope \`participant\` again?`,
    );
    expect(await apply(h, revert)).toContain('scope is now `participant`');
    expect(writes(h)).toEqual([
      `PUT /v3/groups/${HIKING}/members/${PARTICIPANT}`,
      `PUT /v3/groups/${HIKING}/members/${PARTICIPANT}`,
    ]);
    expect(scopeOf(h, HIKING, PARTICIPANT)).toBe('participant');
    expect(await newest(store)).toMatchObject({ outcome: 'applied', reverts: record.ref });
  });

  it('kicks once after review and audits it, with no Revert: the member is added back elsewhere', async () => {
    const h = await withEditors();
    const review = await reviewOf(h, `group ${HIKING} kick ${PARTICIPANT}`);
    expect(textOf(review)).toContain(`Kick \`${PARTICIPANT}\` from *Hiking club* \`${HIKING}\`?`);
    expect(textOf(review)).toContain(KICK_NO_REVERT);
    expect(await apply(h, review)).toContain('kicked from the group');
    expect(writes(h)).toEqual([`DELETE /v3/groups/${HIKING}/members/${PARTICIPANT}`]);
    expect(scopeOf(h, HIKING, PARTICIPANT)).toBeUndefined();
    const record = await newest(store);
    expect(record).toMatchObject({
      outcome: 'applied',
      changes: [{ key: 'membership', before: 'member', after: 'kicked' }],
    });
    expect(revertIn(await auditList(h), record.ref)).toBeUndefined();
    // Asked again: not a member, one sentence, nothing sent.
    const mark = h.slack.calls.length;
    await driverAs(h, 'U0OPERATOR').command(`group ${HIKING} kick ${PARTICIPANT}`);
    expect(textOf(await modalShown(h, mark))).toContain(
      `\`${PARTICIPANT}\` is not a member of group \`${HIKING}\`; nothing was changed.`,
    );
    expect(writes(h)).toHaveLength(1);
  });

  it('bans once after review and audits it; its revert lifts the ban', async () => {
    const h = await withEditors();
    const page = await commandReply(h, `group ${HIKING} members`);
    const review = await clickIntoModal(h, memberButton(page, PARTICIPANT, ACTIONS.groupMemberBan));
    expect(textOf(review)).toContain(`Ban \`${PARTICIPANT}\` from *Hiking club* \`${HIKING}\`?`);
    expect(await apply(h, review)).toContain('banned from the group');
    expect(writes(h)).toEqual([`POST /v3/groups/${HIKING}/bannedusers/${PARTICIPANT}`]);
    expect(bannedIn(h, HIKING, PARTICIPANT)).toBe(true);
    const record = await newest(store);
    expect(record).toMatchObject({ changes: [{ key: 'ban', before: 'none', after: 'banned' }] });
    const revert = await revertReview(h, record.ref);
    expect(textOf(revert)).toContain(`lift the ban of \`${PARTICIPANT}\` in group \`${HIKING}\``);
    expect(await apply(h, revert)).toContain('the ban is lifted');
    expect(writes(h)).toEqual([
      `POST /v3/groups/${HIKING}/bannedusers/${PARTICIPANT}`,
      `DELETE /v3/groups/${HIKING}/bannedusers/${PARTICIPANT}`,
    ]);
    expect(bannedIn(h, HIKING, PARTICIPANT)).toBe(false);
  });

  it('unbans once from the banned list after review; its revert bans again', async () => {
    const h = await withEditors();
    const banned = await commandReply(h, `group ${HIKING} banned`);
    const review = await clickIntoModal(h, accessories(banned)[0]);
    expect(textOf(review)).toContain(
      `Lift the ban of \`${BANNED}\` in *Hiking club* \`${HIKING}\`?`,
    );
    expect(await apply(h, review)).toContain('the ban is lifted');
    expect(writes(h)).toEqual([`DELETE /v3/groups/${HIKING}/bannedusers/${BANNED}`]);
    const record = await newest(store);
    expect(record).toMatchObject({ changes: [{ key: 'ban', before: 'banned', after: 'none' }] });
    const revert = await revertReview(h, record.ref);
    expect(await apply(h, revert)).toContain('banned from the group');
    expect(writes(h)).toEqual([
      `DELETE /v3/groups/${HIKING}/bannedusers/${BANNED}`,
      `POST /v3/groups/${HIKING}/bannedusers/${BANNED}`,
    ]);
    expect(bannedIn(h, HIKING, BANNED)).toBe(true);
  });

  it('asks for approval where the app does, and bans once an approver approves', async () => {
    const h = await withEditors({ APPROVAL_CHANNEL: 'C0APPROVE' });
    const review = await reviewOf(h, `group ${HIKING} ban ${PARTICIPANT}`);
    expect(textOf(review)).toContain('Ask for approval in <#C0APPROVE>');
    const mark = h.slack.calls.length;
    await submitView(h, review, {});
    const post = await h.slack.nextCall('chat.postMessage', mark);
    expect(post.args.channel).toBe('C0APPROVE');
    expect(textOf(post.args)).toContain(`member \`${PARTICIPANT}\` of group \`${HIKING}\``);
    expect(writes(h)).toEqual([]);
    const approve = actionButtons({ blocks: post.args.blocks }).find(
      (b) => b.action_id === ACTIONS.approveChange,
    );
    const approver = driverAs(h, 'U0LEAD');
    const decided = h.slack.calls.length;
    await approver.interaction(
      approver.blockAction({
        actionId: ACTIONS.approveChange,
        value: approve?.value ?? '',
        responseUrl: h.slack.responseUrl(),
        message: { ts: '1700000000.000300', blocks: post.args.blocks as unknown[] },
      }),
    );
    await h.slack.nextCall('chat.update', decided);
    expect(writes(h)).toEqual([`POST /v3/groups/${HIKING}/bannedusers/${PARTICIPANT}`]);
    expect(await newest(store)).toMatchObject({
      outcome: 'applied',
      userId: 'U0OPERATOR',
      approval: { approvedBy: 'U0LEAD' },
      subject: { kind: 'group-member', guid: HIKING, uid: PARTICIPANT },
    });
  });

  it('sends nothing when the member moved between the review and Apply', async () => {
    const h = await withEditors();
    const review = await reviewOf(h, `group ${HIKING} scope ${PARTICIPANT} admin`);
    const member = h.sandbox.state.accounts.members.get(HIKING)?.get(PARTICIPANT);
    if (!member) throw new Error('the seed has the participant');
    member.scope = 'moderator';
    expect(await apply(h, review)).toContain('The member changed in CometChat since the review');
    expect(writes(h)).toEqual([]);
  });

  it('bad input gets one sentence and sends nothing', async () => {
    const h = await withEditors();
    expect(await commandText(h, 'group Bad/Guid')).toContain(
      'A guid is lower-case letters, digits, `-` and `_` only, as CometChat stores it.',
    );
    expect(await commandText(h, 'group no-such-group')).toContain(
      'CometChat has no group with that guid',
    );
    expect(await commandText(h, `group ${HIKING} scope ${PARTICIPANT} owner`)).toContain(
      SCOPE_PROBLEM,
    );
    const mark = h.slack.calls.length;
    await driverAs(h, 'U0OPERATOR').command(`group ${HIKING} kick ${NOT_MEMBER}`);
    const notMember = await modalShown(h, mark);
    expect(textOf(notMember)).toContain(
      `\`${NOT_MEMBER}\` is not a member of group \`${HIKING}\`; nothing was changed.`,
    );
    const sameScope = h.slack.calls.length;
    await driverAs(h, 'U0OPERATOR').command(`group ${HIKING} scope ${MODERATOR} moderator`);
    expect(textOf(await modalShown(h, sameScope))).toContain('has scope `moderator` already');
    expect(writes(h)).toEqual([]);
    expect((await store.listAudit({ offset: 0, limit: 5 })).records).toEqual([]);
  });

  it('refuses a viewer the change in one sentence, and sends nothing', async () => {
    const h = await withEditors();
    const refused = await commandText(
      h,
      `group ${HIKING} kick ${PARTICIPANT}`,
      driverAs(h, 'U0VIEWER'),
    );
    expect(refused).toContain(REFUSALS.edit);
    expect(writes(h)).toEqual([]);
  });
});
