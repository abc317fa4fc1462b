import { describe, expect, it } from 'vitest';
import { SANDBOX_GROUP_IDS as G } from '../../offline/cometchat-standin/server.ts';
import { defaultPermissions } from '../../src/cometchat/catalogue.ts';
import { createMemoryStore, knownScopeKey } from '../../src/store/store.ts';
import { commandReply, textOf } from './harness.ts';
import { useSharedHarness } from './support.ts';

// "Can <uid> <action> in <guid>" through the real app against the CometChat stand-in's seeded
// groups: both layers walked, each step naming where its value came from, and the answer.

// One store for the file: each test sets the maps it rests on, whatever an earlier one left.
const store = createMemoryStore();
const SEEN = Date.UTC(2026, 10, 20);

/** What this app would know after changing `role` through the editor. */
async function knownRole(role: string, overrides: Record<string, string> = {}) {
  await store.setKnownPermissions({
    app: 'default',
    role,
    permissions: { ...defaultPermissions(), ...overrides },
    seenAt: SEEN,
    ref: 'a1b2c3d4e5',
  });
}

/** What this app would know after changing a group's scope through the scope editor. */
async function knownScope(guid: string, scope: string, permissions: Record<string, string>) {
  await store.setKnownPermissions({
    app: 'default',
    role: knownScopeKey(guid, scope),
    permissions,
    seenAt: SEEN,
    ref: 'f6e5d4c3b2',
  });
}

/** The walk's lines as Slack shows them (the section with one line per step). */
const lines = (reply: Record<string, unknown>) => textOf(reply).split('\n');

describe('can in a group, through the real app', () => {
  const h = useSharedHarness({ store }, { resetAfterEach: true });

  it('is allowed when both layers were set through this app, every step naming its source', async () => {
    await knownRole('default');
    await knownScope(G.townHall, 'participant', { sendMessage: 'allow' });
    const reply = await commandReply(h, `user ${G.allowed} can sendMessage in ${G.townHall}`);
    const text = textOf(reply);
    expect(text).toContain(':white_check_mark: *Allowed.*');
    expect(text).toContain(`Can ${G.allowed} sendMessage in ${G.townHall}?`);
    expect(text).toMatch(
      /\*Role · the action\* \*Message Sending\* \(`sendMessage`\) = `allow` \(as this app last set the role, <!date[^>]*> \(ref `a1b2c3d4e5`\)\)/,
    );
    expect(text).toContain(
      `*Group · the group* (from CometChat): \`${G.townHall}\` is a \`private\` group`,
    );
    expect(text).toContain(
      '*Group · a ban* (from CometChat): a member: a ban would have removed them',
    );
    expect(text).toContain('*Group · membership* (from CometChat): a member, scope `participant`');
    expect(text).toMatch(
      /\*Scope · the scope\* \*Message Sending\* \(`sendMessage`\) = `allow` \(as this app last set the scope, <!date[^>]*> \(ref `f6e5d4c3b2`\)\): scope `participant` is allowed it/,
    );
    // Every step that is checked names where its value came from.
    const checked = lines(reply).filter((line) =>
      /^:(white_check_mark|no_entry|grey_question):/.test(line),
    );
    expect(checked.length).toBeGreaterThan(5);
    for (const line of checked.filter((l) => !l.includes('*Allowed.*'))) {
      expect(line).toMatch(
        /\((from CometChat|as this app last set the (role|scope), |the documented default|the default CometChat lists for the scope|unknown)/,
      );
    }
  });

  it("is denied by the role, in the role's layer", async () => {
    await knownRole('default', { sendMessage: 'deny' });
    const reply = await commandReply(h, `user ${G.allowed} can sendMessage in ${G.townHall}`);
    expect(textOf(reply)).toContain(
      ":no_entry: *Denied by* *Message Sending* (`sendMessage`) = `deny` in the role's permissions: role `default` is denied it.",
    );
  });

  it("is denied by the scope this app set, in the scope's layer", async () => {
    await knownRole('premium');
    await knownScope(G.hiking, 'participant', { ...G.hikingParticipantPermissions });
    const reply = await commandReply(h, `user ${G.deniedByScope} can sendMessage in ${G.hiking}`);
    expect(textOf(reply)).toContain(
      ":no_entry: *Denied by* *Message Sending* (`sendMessage`) = `deny` in the member's scope's permissions in the group: scope `participant` is denied it.",
    );
    expect(textOf(reply)).toMatch(
      /\(as this app last set the scope, <!date[^>]*> \(ref `f6e5d4c3b2`\)\)/,
    );
  });

  it('is denied by a ban, whatever is known of the values', async () => {
    await knownRole('premium');
    const reply = await commandReply(
      h,
      `user ${G.bannedFromHiking} can sendMessage in ${G.hiking}`,
    );
    const text = textOf(reply);
    expect(text).toContain(
      '*Group · a ban* (from CometChat): banned from the group: they cannot join it again until the ban is lifted',
    );
    expect(text).toContain(
      ':no_entry: *Denied* in the group: banned from the group: they cannot join it again until the ban is lifted.',
    );
    const read = h.sandbox.requests.find((r) => r.path === `/v3/groups/${G.hiking}/bannedusers`);
    expect(read?.method).toBe('GET');
  });

  it('is denied to someone outside the group, and says what joining it would take', async () => {
    await knownRole('default');
    const reply = await commandReply(h, `user ${G.notMember} can sendMessage in ${G.hiking}`);
    const text = textOf(reply);
    expect(text).toContain(
      ':no_entry: *Denied* in the group: not a member: CometChat takes `sendMessage` in a group from its members.',
    );
    expect(text).toContain(
      '*Group · to join* (from CometChat): a private group: nobody joins it, an admin or the app adds members',
    );
    expect(text).toMatch(
      /\*Role · to join\* \*[^*]+\* \(`joinGroup`\) = `allow` \(as this app last set the role, /,
    );
  });

  it("cannot tell when the scope's value is only CometChat's listed default, and says why", async () => {
    // The stand-in's hiking participants are denied sendMessage, but this app never set it (the
    // map it set names another key): all it has is the default the scope's definitions list.
    await knownRole('premium');
    await knownScope(G.hiking, 'participant', { initiateCall: 'deny' });
    const reply = await commandReply(h, `user ${G.deniedByScope} can sendMessage in ${G.hiking}`);
    const text = textOf(reply);
    expect(text).toContain(
      '*Scope · the scope* *Message Sending* (`sendMessage`) = `allow` (the default CometChat lists for the scope): scope `participant` is allowed it',
    );
    expect(text).toContain(
      ":grey_question: *Cannot tell*: *Message Sending* (`sendMessage`) was never set through this app, and CometChat offers no read of a group scope's permissions. By the documented defaults it would be allowed.",
    );
    const definitions = h.sandbox.requests.filter(
      (r) => r.path === `/v3/groups/${G.hiking}/scopes/participant/permissions`,
    );
    expect(definitions.map((r) => r.method)).toEqual(['GET']);
  });

  it('says an unknown group in one sentence, and changes nothing', async () => {
    const reply = await commandReply(h, `user ${G.allowed} can sendMessage in no-such-group`);
    expect(textOf(reply)).toContain('CometChat has no group with that guid');
    expect(h.sandbox.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('refuses a guid that cannot be one, and an action no group has, before asking CometChat', async () => {
    const bad = await commandReply(h, `user ${G.allowed} can sendMessage in hik/ing`);
    expect(textOf(bad)).toContain('A guid is');
    const users = await commandReply(h, `user ${G.allowed} can listUsers in ${G.hiking}`);
    expect(textOf(users)).toContain('`listUsers` is not done inside a group.');
    expect(h.sandbox.requests).toEqual([]);
  });
});
