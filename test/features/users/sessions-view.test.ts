import type { KnownBlock, SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../../src/cometchat/account-model.ts';
import type { User } from '../../../src/cometchat/model.ts';
import {
  DEACTIVATED_SESSIONS,
  SESSIONS_SHOWN,
  SESSIONS_UNREAD,
  type SessionsRead,
  sessionsBlocks,
} from '../../../src/features/users/sessions-view.ts';
import { userCardMessage } from '../../../src/features/users/user-card.ts';
import { sessionsToReview } from '../../../src/features/users/user-sessions.ts';
import { ACTIONS } from '../../../src/slack/ids.ts';
import { actionButtons, textOf } from '../../integration/harness.ts';

// A user's sessions on their card: how many, each one's fingerprint, platform, age and client,
// the newest marked, and for an editor the buttons beside what they act on; never a token (the
// card is given fingerprints only). Pure.

const NOW = 1_790_000_000;
const UID = 'cometchat-uid-4';
/** A value as the card writes it, unsigned here: its JSON. */
const write = (value: Record<string, unknown>) => JSON.stringify(value);

const session = (
  fingerprint: string,
  ageSeconds: number,
  more: Partial<Session> = {},
): Session => ({
  fingerprint,
  createdAt: NOW - ageSeconds,
  ...more,
});
// Listed oldest first here: the card marks the newest whatever order it is given.
const THREE = [
  session('cccc3333', 3 * 86_400),
  session('bbbb2222', 7200, { platform: 'web', userAgent: 'Firefox <!channel> *bold*' }),
  session('aaaa1111', 120, { platform: 'ios', appInfo: 'Chat 4.2' }),
];
const read = (sessions: readonly Session[]): SessionsRead => ({ kind: 'read', sessions });

/** The buttons beside the sections (their accessories), in order. */
const accessories = (blocks: readonly KnownBlock[]) =>
  blocks.flatMap((b) => {
    const accessory = b.type === 'section' ? (b as SectionBlock).accessory : undefined;
    return accessory?.type === 'button' ? [accessory] : [];
  });
const sectionTexts = (blocks: readonly KnownBlock[]) =>
  blocks.flatMap((b) => (b.type === 'section' && b.text ? [b.text.text] : []));

const user: User = { uid: UID, name: 'Ana', role: 'premium', status: 'offline' };
const options = (editor: boolean, sessions: SessionsRead) => ({
  write,
  editor,
  sessions: { read: sessions, nowSeconds: NOW },
});

describe("the card's sessions", () => {
  it('counts them and lists each, newest first and marked, with its age and client', () => {
    const blocks = sessionsBlocks(read(THREE), { uid: UID, write, editor: false, nowSeconds: NOW });
    const [summary, ...lines] = sectionTexts(blocks);
    expect(summary).toContain('*Sessions*: 3 sessions');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^`aaaa1111` · ios · began 2 minutes ago \(<!date\^1789999880\^/);
    expect(lines[0]).toContain('· Chat 4.2 · *newest*');
    expect(lines[1]).toMatch(/^`bbbb2222` · web · began 2 hours ago/);
    expect(lines[2]).toMatch(/^`cccc3333` · platform not given · began 3 days ago/);
    expect(lines.filter((line) => line.includes('*newest*'))).toHaveLength(1);
    // What the service says of a client is escaped: no mention, no markup of its own.
    expect(lines[1]).not.toContain('<!channel>');
    expect(lines[1]).toContain('&lt;!channel&gt;');
  });

  it("gives an editor Sign out everywhere and each session's Revoke, carrying fingerprints only", () => {
    const blocks = sessionsBlocks(read(THREE), { uid: UID, write, editor: true, nowSeconds: NOW });
    const buttons = accessories(blocks);
    expect(buttons.map((b) => [b.action_id, b.text.text, b.value])).toEqual([
      [ACTIONS.userSignOut, 'Sign out everywhere', JSON.stringify({ uid: UID })],
      [ACTIONS.userRevokeSession, 'Revoke', JSON.stringify({ uid: UID, session: 'aaaa1111' })],
      [ACTIONS.userRevokeSession, 'Revoke', JSON.stringify({ uid: UID, session: 'bbbb2222' })],
      [ACTIONS.userRevokeSession, 'Revoke', JSON.stringify({ uid: UID, session: 'cccc3333' })],
    ]);
    expect(buttons[0]?.style).toBe('danger');
    // A viewer sees the same sessions and no button.
    const viewer = sessionsBlocks(read(THREE), { uid: UID, write, editor: false, nowSeconds: NOW });
    expect(accessories(viewer)).toEqual([]);
    expect(sectionTexts(viewer)).toEqual(sectionTexts(blocks));
  });

  it('lists the newest few and counts the rest, which Sign out everywhere revokes too', () => {
    const many = Array.from({ length: SESSIONS_SHOWN + 4 }, (_, i) =>
      session(`${i}`.padStart(8, 'f'), i * 60),
    );
    const blocks = sessionsBlocks(read(many), { uid: UID, write, editor: true, nowSeconds: NOW });
    expect(accessories(blocks)).toHaveLength(1 + SESSIONS_SHOWN);
    expect(textOf(blocks)).toContain(
      '…and 4 older sessions; _Sign out everywhere_ revokes them too.',
    );
  });

  it('says when there are none, and offers nothing to revoke', () => {
    const blocks = sessionsBlocks(read([]), { uid: UID, write, editor: true, nowSeconds: NOW });
    expect(sectionTexts(blocks)).toEqual([
      '*Sessions*: none; `cometchat-uid-4` is signed in nowhere.',
    ]);
    expect(accessories(blocks)).toEqual([]);
  });

  it("says a deactivated account's sessions cannot be read, and a failure in one line", () => {
    const options = { uid: UID, write, editor: true, nowSeconds: NOW };
    expect(sessionsBlocks({ kind: 'deactivated' }, options)).toEqual([
      { type: 'section', text: { type: 'mrkdwn', text: DEACTIVATED_SESSIONS } },
    ]);
    expect(sessionsBlocks({ kind: 'failed' }, options)).toEqual([
      { type: 'section', text: { type: 'mrkdwn', text: SESSIONS_UNREAD } },
    ]);
  });
});

describe('the card with its sessions', () => {
  it('keeps the card whole around them: the facts, the role, the same buttons below', () => {
    const withSessions = userCardMessage(user, options(true, read(THREE)));
    const without = userCardMessage(user, { write, editor: true });
    expect(actionButtons({ blocks: withSessions.blocks })).toEqual(
      actionButtons({ blocks: without.blocks }),
    );
    expect(textOf(withSessions)).toContain(textOf(without.blocks?.[1]));
    expect(textOf(withSessions)).toContain('*Sessions*: 3 sessions');
  });

  it('gives an editor of an active account Contain…, signed with the uid as the other buttons', () => {
    const card = userCardMessage(user, options(true, read(THREE)));
    const contain = accessories(card.blocks ?? []).find((b) => b.action_id === ACTIONS.userContain);
    expect(contain?.text.text).toBe('Contain…');
    expect(contain?.value).toBe(JSON.stringify({ uid: UID }));
    const changeRole = actionButtons({ blocks: card.blocks }).find(
      (b) => b.action_id === ACTIONS.userChangeRole,
    );
    expect(contain?.value).toBe(changeRole?.value);
    // Not to a viewer; not for an account already deactivated.
    const viewer = userCardMessage(user, options(false, read(THREE)));
    expect(accessories(viewer.blocks ?? [])).toEqual([]);
    const gone = userCardMessage(
      { ...user, deactivatedAt: NOW - 60 },
      options(true, { kind: 'deactivated' }),
    );
    expect(accessories(gone.blocks ?? []).map((b) => b.action_id)).toEqual([]);
    expect(textOf(gone)).toContain(DEACTIVATED_SESSIONS);
  });
});

describe('what revoking sessions has to review', () => {
  const active = { uid: UID };
  it('the sessions, when the one to revoke is there, or for all when there are any', () => {
    expect(sessionsToReview(active, THREE, 'bbbb2222')).toEqual({ sessions: THREE });
    expect(sessionsToReview(active, THREE, undefined)).toEqual({ sessions: THREE });
  });

  it('one sentence when there is nothing: no session, a session gone, a deactivated account', () => {
    expect(sessionsToReview(active, [], undefined)).toEqual({
      problem:
        '`cometchat-uid-4` has no sessions: there is nothing to revoke, and nothing was sent.',
    });
    expect(sessionsToReview(active, THREE, 'dddd4444')).toEqual({
      problem: expect.stringMatching(
        /^Session `dddd4444` of `cometchat-uid-4` is gone since the card was drawn \(revoked, or signed out\), so nothing was sent\./,
      ),
    });
    expect(sessionsToReview({ ...active, deactivatedAt: NOW }, undefined, undefined)).toEqual({
      problem: expect.stringContaining('`cometchat-uid-4` is deactivated'),
    });
  });
});
