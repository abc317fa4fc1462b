import type { View } from '@slack/types';
import { describe, expect, it, vi } from 'vitest';
import type { Access } from '../../../src/access/access.ts';
import { createApps } from '../../../src/apps/apps.ts';
import { changeOf, decodeChange, encodeChange, subjectOf } from '../../../src/changes/change.ts';
import { kindOf, type Reads } from '../../../src/changes/kinds/index.ts';
import {
  ageText,
  SESSION_DROP_UNDOCUMENTED,
  SESSIONS_NO_REVERT,
  sessionLine,
  sessionsIrreversible,
} from '../../../src/changes/kinds/sessions.ts';
import { auditRecord } from '../../../src/changes/record.ts';
import { revertOf } from '../../../src/changes/revert.ts';
import { revertButton } from '../../../src/changes/revert-view.ts';
import { reviewSessionsChange, sessionsChangeOf } from '../../../src/changes/review.ts';
import { changeLine } from '../../../src/changes/views.ts';
import type { Session } from '../../../src/cometchat/account-model.ts';
import type { CometChatClient } from '../../../src/cometchat/client.ts';
import { CometChatError } from '../../../src/cometchat/errors.ts';
import { textOf } from '../../integration/harness.ts';

// Revoking a user's sessions as a kind of change: read back only as one the app makes, sent as
// exactly one DELETE (one session, or all), out of date when a session to revoke is gone, and
// never reverted.

const UID = 'cometchat-uid-4';
const NOW = 1_790_000_000;

const session = (
  fingerprint: string,
  ageSeconds: number,
  more: Partial<Session> = {},
): Session => ({
  fingerprint,
  createdAt: NOW - ageSeconds,
  ...more,
});
const SESSIONS = [
  session('aaaa1111', 120, { platform: 'ios', appInfo: 'Chat 4.2' }),
  session('bbbb2222', 7200, { platform: 'web', userAgent: 'Firefox <!channel>' }),
  session('cccc3333', 3 * 86_400),
];
const asked = (revoke?: string) => ({
  uid: UID,
  name: 'Ana',
  role: 'premium',
  sessions: SESSIONS,
  revoke,
});
const one = sessionsChangeOf('default', asked('bbbb2222'), 'V0VIEW');
const all = sessionsChangeOf('default', asked(), 'V0VIEW');

/** A client that records each revocation and lists `now`'s fingerprints as the sessions. */
function client(now: readonly string[] = ['aaaa1111', 'bbbb2222', 'cccc3333']) {
  const sent: string[] = [];
  const calls = {
    revokeSession: vi.fn(async (uid: string, fingerprint: string) => {
      sent.push(`one ${uid} ${fingerprint}`);
    }),
    revokeAllSessions: vi.fn(async (uid: string) => {
      sent.push(`all ${uid}`);
    }),
    listSessions: vi.fn(async () => now.map((f) => session(f, 60))),
  };
  return { sent, calls };
}

const reads = (listed: ReturnType<typeof client>['calls']): Reads => ({
  store: { getKnownPermissions: async () => undefined },
  app: { name: 'default', cometchat: listed as unknown as Reads['app']['cometchat'] },
});

describe('revoking sessions, as a kind of change', () => {
  it('carries fingerprints from the sessions before to those that remain', () => {
    expect(one).toMatchObject({
      kind: 'sessions',
      uid: UID,
      role: 'premium',
      changes: [
        {
          key: 'sessions',
          before: ['aaaa1111', 'bbbb2222', 'cccc3333'],
          after: ['aaaa1111', 'cccc3333'],
        },
      ],
    });
    expect(all.changes[0]?.after).toEqual([]);
    // The same review of another session, or of all, is another change.
    expect(
      new Set([one.id, all.id, sessionsChangeOf('default', asked('aaaa1111'), 'V0VIEW').id]).size,
    ).toBe(3);
  });

  it("is read back from Slack and from records as it was written, on the user's subject", () => {
    for (const change of [one, all]) {
      expect(decodeChange(encodeChange(change))).toEqual(change);
      expect(subjectOf(change)).toEqual({ kind: 'user', uid: UID });
      const record = auditRecord(
        { app: 'default', change, userId: 'U0EDITOR', teamId: 'T0' },
        { ref: 'ref1', at: NOW * 1000 },
        'applied',
        {},
      );
      // As an approval request keeps it: the record's fields and the change's id.
      expect(changeOf({ ...record, id: change.id })).toMatchObject(change);
    }
  });

  it('is not read back when it is not a revocation the app makes', () => {
    const forged = (before: string[], after: string[]) =>
      decodeChange(
        encodeChange({ ...one, changes: [{ key: 'sessions', before, after, explicit: false }] }),
      );
    const before = ['aaaa1111', 'bbbb2222', 'cccc3333'];
    // Two of three revoked: neither one session nor every one.
    expect(forged(before, ['aaaa1111'])).toBeUndefined();
    // A session that was not there before.
    expect(forged(before, ['aaaa1111', 'dddd4444'])).toBeUndefined();
    // Nothing revoked.
    expect(forged(before, before)).toBeUndefined();
    expect(forged([], [])).toBeUndefined();
    // Not a fingerprint (a token, say).
    expect(forged(['not a fingerprint'], [])).toBeUndefined();
    expect(forged(['aaaa1111', 'aaaa1111'], ['aaaa1111'])).toBeUndefined();
    expect(forged(before, [])).toMatchObject({ kind: 'sessions', changes: all.changes });
  });

  it('sends one DELETE of the one session, or one DELETE of them all', async () => {
    const revokeOne = client();
    const sentOne = await kindOf(one).send(revokeOne.calls as never);
    expect(revokeOne.sent).toEqual([`one ${UID} bbbb2222`]);
    expect(sentOne.results.sessions?.success).toBe(true);
    const revokeAll = client();
    await kindOf(all).send(revokeAll.calls as never);
    expect(revokeAll.sent).toEqual([`all ${UID}`]);
  });

  it("claims the user, as the user's other changes do, and says what it did", () => {
    expect(kindOf(one).target).toBe(`user:${UID}`);
    expect(kindOf(one).done).toBe('session `bbbb2222` is revoked');
    expect(kindOf(all).done).toBe('signed out everywhere (3 sessions revoked)');
  });

  it('is out of date, naming it, when a session to revoke is gone; sent when others are', async () => {
    const gone = await kindOf(one).sinceReview(reads(client(['aaaa1111', 'cccc3333']).calls));
    expect(gone).toMatchObject({ changed: true, has: true });
    expect(gone.why).toContain('Session `bbbb2222` of `cometchat-uid-4` is gone since the review');
    expect(gone.why).toContain('nothing was sent');
    // Another session gone, or a new one begun, changes nothing the revocation acts on.
    const others = await kindOf(one).sinceReview(reads(client(['bbbb2222', 'eeee5555']).calls));
    expect(others).toEqual({ changed: false, has: false });
    const allGoneOne = await kindOf(all).sinceReview(reads(client(['aaaa1111']).calls));
    expect(allGoneOne).toMatchObject({ changed: true, has: false });
    expect(allGoneOne.why).toContain('Sessions `bbbb2222`, `cccc3333`');
  });

  it('has no Revert: a revoked session cannot be restored', () => {
    const record = auditRecord(
      { app: 'default', change: all, userId: 'U0EDITOR', teamId: 'T0' },
      { ref: 'ref1', at: NOW * 1000 },
      'applied',
      {},
    );
    expect(sessionsIrreversible(record)).toBe(SESSIONS_NO_REVERT);
    expect(revertOf(record, { roles: [], defaults: {} })).toEqual({
      kind: 'none',
      sentence: `${SESSIONS_NO_REVERT} Nothing was sent.`,
    });
    expect(revertButton((v) => JSON.stringify(v), record)).toBeUndefined();
  });

  it('is one line in a request or a record: what it revokes, and what stays', () => {
    const [oneKey] = one.changes;
    const [allKey] = all.changes;
    if (!oneKey || !allKey) throw new Error('no key');
    expect(changeLine(oneKey, 'sessions')).toBe(
      '*Sessions* (`sessions`): revoke `bbbb2222`; 2 other sessions stay.',
    );
    expect(changeLine(allKey, 'sessions')).toContain(
      'revoke all 3 sessions (`aaaa1111`, `bbbb2222`, `cccc3333`), and any begun since',
    );
  });
});

describe('a session in words', () => {
  it('says its age in the largest whole unit', () => {
    expect(ageText(30)).toBe('just now');
    expect(ageText(120)).toBe('2 minutes ago');
    expect(ageText(3600)).toBe('1 hour ago');
    expect(ageText(3 * 86_400 + 5)).toBe('3 days ago');
  });

  it('names its fingerprint, platform, age and client, escaped, and never more', () => {
    const [, web] = SESSIONS;
    if (!web) throw new Error('no session');
    const line = sessionLine(web, NOW);
    expect(line).toMatch(/^`bbbb2222` · web · began 2 hours ago \(<!date[^>]+>\) · Firefox/);
    expect(line).not.toContain('<!channel>');
    expect(sessionLine(session('dddd4444', 10), NOW, true)).toContain(
      'platform not given · began just now',
    );
    expect(sessionLine(session('dddd4444', 10), NOW, true)).toMatch(/· \*newest\*$/);
  });
});

/** A modal's submit label; none: it submits nothing. */
const submitText = (view: View) => (view.type === 'modal' ? view.submit?.text : undefined);

describe('the review of revoking sessions', () => {
  const apps = (approval?: { channel: string; ttlMs: number }) =>
    createApps([
      {
        name: 'default',
        appId: 'a',
        region: 'us',
        apiKey: 'k',
        cometchat: {} as CometChatClient,
        access: {} as Access,
        approval,
      },
    ]);
  const review = (revoke?: string, approval?: { channel: string; ttlMs: number }) => {
    const registry = apps(approval);
    const [app] = registry.all;
    if (!app) throw new Error('no app');
    return reviewSessionsChange(registry, app, asked(revoke), 'V0VIEW', NOW);
  };

  it('says plainly that CometChat does not document when a connected session drops', () => {
    for (const view of [review(), review('aaaa1111')]) {
      expect(textOf(view)).toContain(SESSION_DROP_UNDOCUMENTED);
      expect(textOf(view)).toContain(SESSIONS_NO_REVERT);
      expect(submitText(view)).toBe('Apply');
    }
    expect(textOf(review())).toContain(
      'Sign *Ana* `cometchat-uid-4` out everywhere? One request revokes every session',
    );
    expect(textOf(review('aaaa1111'))).toContain(
      'Revoke session `aaaa1111` of *Ana* `cometchat-uid-4`? That client must sign in again; 2 other sessions stay.',
    );
    expect(textOf(review('aaaa1111'))).toContain('`aaaa1111` · ios · began 2 minutes ago');
  });

  it('carries the change, signed, and asks for approval where the app does', () => {
    const view = review('aaaa1111');
    const metadata = String(view.private_metadata);
    expect(decodeChange(metadata.slice(metadata.indexOf('.') + 1))).toMatchObject({
      kind: 'sessions',
      uid: UID,
    });
    const approved = review(undefined, { channel: 'C0APPROVE', ttlMs: 60_000 });
    expect(submitText(approved)).toBe('Request approval');
    expect(textOf(approved)).toContain('Ask for approval in <#C0APPROVE>');
  });

  it('refuses to carry a revocation too large for Slack, and offers Sign out everywhere', () => {
    const many = Array.from({ length: 150 }, (_, i) => session(i.toString(16).padStart(8, '0'), i));
    const registry = apps();
    const [app] = registry.all;
    if (!app) throw new Error('no app');
    const view = reviewSessionsChange(
      registry,
      app,
      { ...asked('00000001'), sessions: many },
      'V0VIEW',
      NOW,
    );
    expect(textOf(view)).toContain('too many sessions to carry through a review in Slack');
    expect(textOf(view)).toContain('_Sign out everywhere_ revokes them all.');
    expect(submitText(view)).toBeUndefined();
    // More than a change of sessions holds, however short: not offered either.
    const most = Array.from({ length: 201 }, (_, i) => session(i.toString(16).padStart(4, '0'), i));
    const everywhere = reviewSessionsChange(
      registry,
      app,
      { ...asked(), sessions: most },
      'V0VIEW',
      NOW,
    );
    expect(textOf(everywhere)).toContain('_Deactivate_ on their card cuts them off instead.');
    expect(submitText(everywhere)).toBeUndefined();
  });
});

describe('a revocation CometChat refuses', () => {
  it('is the failure of the one request sent', async () => {
    const refusing = client();
    refusing.calls.revokeSession.mockRejectedValueOnce(
      new CometChatError({ kind: 'not_found', ref: 'r', operation: 'revokeSession' }),
    );
    await expect(kindOf(one).send(refusing.calls as never)).rejects.toBeInstanceOf(CometChatError);
    expect(refusing.calls.revokeAllSessions).not.toHaveBeenCalled();
  });
});
