import type { KnownBlock } from '@slack/types';
import type { ValueWriter } from '../../apps/apps.ts';
import { sessionLine } from '../../changes/index.ts';
import type { Session } from '../../cometchat/account-model.ts';
import { counted } from '../../replies/sentences.ts';
import { button, context, section } from '../../slack/blocks.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { code } from '../../slack/mrkdwn.ts';

// A user's sessions on their card: how many, each one's fingerprint, platform and age, the newest
// marked; for an editor, _Sign out everywhere_ and each session's _Revoke_ (each opens its review)
// beside what it acts on, and _Contain…_. Never a token: the client gives fingerprints only. Pure.

/** How many sessions the card lists one by one (a section each) before counting the rest. */
export const SESSIONS_SHOWN = 8;

/** What the card could read of the user's sessions. */
export type SessionsRead =
  | { kind: 'read'; sessions: readonly Session[] }
  /** CometChat answers a deactivated user's uid on the sessions route with `ERR_UID_NOT_FOUND`. */
  | { kind: 'deactivated' }
  | { kind: 'failed' };

export interface SessionsOptions {
  uid: string;
  write: ValueWriter;
  /** The person looking may change this app's users: offered the buttons. */
  editor: boolean;
  /** Unix seconds, for the sessions' ages. */
  nowSeconds: number;
}

/** Said on a deactivated user's card, where CometChat does not list their sessions. */
export const DEACTIVATED_SESSIONS =
  "*Sessions*: a deactivated account's sessions cannot be read (CometChat answers `ERR_UID_NOT_FOUND` for a deactivated user).";

/** Said when the sessions could not be read: the rest of the card stands. */
export const SESSIONS_UNREAD =
  '*Sessions*: could not be read just now; the rest of the card is as CometChat has it. Look the user up again to see them.';

/** The card's sessions: a summary, then a section per session. Pure. */
export function sessionsBlocks(read: SessionsRead, options: SessionsOptions): KnownBlock[] {
  if (read.kind === 'deactivated') return [section(DEACTIVATED_SESSIONS)];
  if (read.kind === 'failed') return [section(SESSIONS_UNREAD)];
  // Newest first, as the client lists them; sorted again so that "newest" cannot be wrong.
  const sessions = [...read.sessions].sort((a, b) => b.createdAt - a.createdAt);
  if (sessions.length === 0) {
    return [section(`*Sessions*: none; ${code(options.uid)} is signed in nowhere.`)];
  }
  const uid = options.write({ uid: options.uid });
  const summary = section(
    `*Sessions*: ${counted(sessions.length, 'session')} (auth tokens, shown by a short fingerprint, never the token).`,
    options.editor ? button('Sign out everywhere', ACTIONS.userSignOut, uid, 'danger') : undefined,
  );
  const listed = sessions
    .slice(0, SESSIONS_SHOWN)
    .map((session, i) =>
      section(
        sessionLine(session, options.nowSeconds, i === 0),
        options.editor
          ? button(
              'Revoke',
              ACTIONS.userRevokeSession,
              options.write({ uid: options.uid, session: session.fingerprint }),
            )
          : undefined,
      ),
    );
  const more = sessions.length - listed.length;
  return [
    summary,
    ...listed,
    ...(more > 0
      ? [
          context([
            `…and ${counted(more, 'older session')}; _Sign out everywhere_ revokes them too.`,
          ]),
        ]
      : []),
  ];
}

/** For an editor, an active account's _Contain…_: one reviewed change for an account in trouble. */
export function containBlock(write: ValueWriter, uid: string): KnownBlock {
  return section(
    '*An account in trouble?* _Contain…_ reviews, as one change, signing them out everywhere and deactivating them, and if you choose, banning them from their groups and deleting their messages since a time.',
    button('Contain…', ACTIONS.userContain, write({ uid }), 'danger'),
  );
}
