import type { Session } from '../../cometchat/account-model.ts';
import { LOOK_UP_USER } from '../../replies/failure.ts';
import { counted } from '../../replies/sentences.ts';
import { code, codeList, escapeMrkdwn, slackDate, truncate } from '../../slack/mrkdwn.ts';
import type { AuditRecord } from '../../store/store.ts';
import type { KeyChange, SessionsChange } from '../change.ts';
import { type Kind, NO_FACTS } from './kind.ts';

// A user's sessions (auth tokens) revoked: one key, `sessions`, from the fingerprints the review
// saw to those that remain. Revoking one sends one DELETE of that session; signing out everywhere
// sends one DELETE of them all. "Is it still as reviewed?" reads the sessions again: a session to
// revoke that is gone meanwhile makes it out of date. The change, its record and its review name
// fingerprints only; the client alone knows the tokens.

/** Said wherever revoking is offered: CometChat does not say when a connected client notices. */
export const SESSION_DROP_UNDOCUMENTED =
  'CometChat does not document whether a connected session drops at once or at its next connection.';

/** Why revoking sessions has no Revert. */
export const SESSIONS_NO_REVERT = 'A revoked session cannot be restored: the user signs in again.';

const SESSIONS_CHANGED = `The user's sessions changed in CometChat since the review, so nothing was sent. ${LOOK_UP_USER} to see their sessions now.`;

/** The sessions a change revokes, and whether it is every one (Sign out everywhere). Pure. */
export function sessionsRevoked(changes: readonly Pick<KeyChange, 'before' | 'after'>[]): {
  revoked: string[];
  everywhere: boolean;
} {
  const [one] = changes;
  const before = Array.isArray(one?.before) ? one.before : [];
  const after = Array.isArray(one?.after) ? one.after : [];
  return {
    revoked: before.filter((fingerprint) => !after.includes(fingerprint)),
    everywhere: after.length === 0,
  };
}

/** What a change of sessions did, in words: "signed out everywhere (3 sessions revoked)". Pure. */
function sessionsDone(changes: readonly Pick<KeyChange, 'before' | 'after'>[]): string {
  const { revoked, everywhere } = sessionsRevoked(changes);
  return everywhere
    ? `signed out everywhere (${counted(revoked.length, 'session')} revoked)`
    : `session ${codeList(revoked)} is revoked`;
}

export function sessionsKind(change: SessionsChange): Kind {
  const { revoked, everywhere } = sessionsRevoked(change.changes);
  return {
    target: `user:${change.uid}`,
    name: `user ${code(change.uid)}`,
    done: sessionsDone(change.changes),
    outOfDate: SESSIONS_CHANGED,
    logged: 'user sessions revoked',
    async send(client) {
      if (revoked.length === 0) throw new Error('revoking sessions revokes at least one');
      if (everywhere) {
        // One DELETE of every token: whatever sessions the user has when it is sent.
        await client.revokeAllSessions(change.uid);
      } else {
        for (const fingerprint of revoked) await client.revokeSession(change.uid, fingerprint);
      }
      const message = everywhere ? 'every session revoked' : `revoked ${revoked.join(', ')}`;
      return { results: { sessions: { success: true, message } } };
    },
    async sinceReview({ app }) {
      const now = (await app.cometchat.listSessions(change.uid)).map((s) => s.fingerprint);
      const gone = revoked.filter((fingerprint) => !now.includes(fingerprint));
      return {
        changed: gone.length > 0,
        // Every session it revokes gone: after an unknown outcome, it took.
        has: gone.length === revoked.length,
        ...(gone.length > 0 ? { why: goneSentence(change.uid, gone) } : {}),
      };
    },
    recordFacts: NO_FACTS,
  };
}

/** Sessions to revoke that are gone since the review: nothing is sent. Pure. */
export function goneSentence(uid: string, gone: readonly string[]): string {
  const which = gone.length === 1 ? `Session ${code(gone[0] ?? '')}` : `Sessions ${codeList(gone)}`;
  return `${which} of ${code(uid)} ${gone.length === 1 ? 'is' : 'are'} gone since the review (revoked, or signed out), so nothing was sent. ${LOOK_UP_USER} to see their sessions now.`;
}

/**
 * Why a record (or change) of revoked sessions has no Revert, or undefined when it is not one:
 * none has (SESSIONS_NO_REVERT). Pure.
 */
export function sessionsIrreversible(record: {
  subject?: AuditRecord['subject'];
  changes: readonly { key: string }[];
}): string | undefined {
  return record.subject?.kind === 'user' && record.changes[0]?.key === 'sessions'
    ? SESSIONS_NO_REVERT
    : undefined;
}

/**
 * A change of sessions as one line of a review, a request or a record: which it revokes, and how
 * many remain. Fingerprints are code, to copy. Pure.
 */
export function sessionsChangeLine(change: Pick<KeyChange, 'before' | 'after'>): string {
  const { revoked, everywhere } = sessionsRevoked([change]);
  if (everywhere) {
    return `*Sessions* (\`sessions\`): revoke all ${counted(revoked.length, 'session')} (${codeList(revoked, 600)}), and any begun since: one request signs the user out everywhere.`;
  }
  const left = Array.isArray(change.after) ? change.after.length : 0;
  return `*Sessions* (\`sessions\`): revoke ${codeList(revoked)}; ${counted(left, 'other session')} ${left === 1 ? 'stays' : 'stay'}.`;
}

/** How long ago, in the largest whole unit: "just now", "5 minutes", "3 days". Pure. */
export function ageText(seconds: number): string {
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${counted(Math.floor(seconds / 60), 'minute')} ago`;
  if (seconds < 86_400) return `${counted(Math.floor(seconds / 3600), 'hour')} ago`;
  return `${counted(Math.floor(seconds / 86_400), 'day')} ago`;
}

/**
 * One session as the card and the review show it: its fingerprint (code, to copy), platform,
 * age (relative to `nowSeconds`, and Slack's date), and what client it is when the service says;
 * never its token. External text escaped. Pure.
 */
export function sessionLine(session: Session, nowSeconds: number, newest = false): string {
  const { fingerprint, createdAt, platform, appInfo, userAgent } = session;
  const began = `began ${ageText(Math.max(0, nowSeconds - createdAt))} (${slackDate(createdAt)})`;
  const client = [appInfo, userAgent]
    .filter((text): text is string => text !== undefined && text.trim() !== '')
    .map((text) => escapeMrkdwn(truncate(text, 100)));
  return [
    code(fingerprint),
    platform ? escapeMrkdwn(truncate(platform, 40)) : 'platform not given',
    began,
    ...client,
    ...(newest ? ['*newest*'] : []),
  ].join(' · ');
}
