import { createHash } from 'node:crypto';
import type { Session } from './account-model.ts';
import { CometChatError } from './errors.ts';
import { everyPage } from './every-page.ts';
import { segment } from './refusals.ts';
import { AuthTokenListResponseSchema, type AuthTokenRecord } from './schemas.ts';
import type { Send, Sender } from './send.ts';

// A user's sessions, on the REST API's host: `/v3/users/{uid}/auth_tokens` (live-api-notes.md,
// "Sessions: auth tokens"). A token is a credential and never leaves this file: a session is
// known outside by its fingerprint, and revoking one lists the tokens again to find it. The one
// request that carries a token in its path masks it in anything its failure says (send.ts).

/** The service's default page (only a user's newest 100 tokens stay valid; every page is read). */
const PER_PAGE = 100;

/** How many hex characters of the token's SHA-256 a fingerprint keeps. */
export const FINGERPRINT_LENGTH = 8;

/** The first hex characters of the token's SHA-256: enough to tell a user's sessions apart. */
export function sessionFingerprint(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, FINGERPRINT_LENGTH);
}

/** Arrow properties, not methods over `this`: a caller may well pass one around on its own. */
export class SessionRequests {
  readonly #send: Send;
  readonly #underOneRef: Sender['underOneRef'];

  constructor({ send, underOneRef }: Sender) {
    this.#send = send;
    this.#underOneRef = underOneRef;
  }

  /** Newest first. A deactivated user is `not_found` (`ERR_UID_NOT_FOUND`), as an unknown one. */
  listSessions = (uid: string) =>
    this.#underOneRef(async () => {
      const tokens = await this.#tokens(uid, 'listSessions');
      return tokens.map(toSession).sort((a, b) => b.createdAt - a.createdAt);
    });

  revokeSession = (uid: string, fingerprint: string) =>
    this.#underOneRef(async (ref) => {
      const operation = 'revokeSession';
      // Listed as a listing: a deactivated user's `ERR_UID_NOT_FOUND` names the user, not a session.
      const tokens = await this.#tokens(uid, 'listSessions');
      const token = tokens.find((held) => sessionFingerprint(held.authToken) === fingerprint);
      if (token === undefined) {
        throw new CometChatError({
          kind: 'not_found',
          ref,
          operation,
          detail: 'the user has no session with that fingerprint',
        });
      }
      const { authToken } = token;
      // Any 2xx is the revocation; its words are not needed.
      await this.#send(
        operation,
        ({ api }) =>
          api
            .delete(`users/${segment(uid, 'uid')}/auth_tokens/${segment(authToken, 'auth token')}`)
            .text(),
        // The path holds the token as segment() wrote it: both forms are masked.
        { mask: [authToken, encodeURIComponent(authToken)] },
      );
    });

  revokeAllSessions = async (uid: string) => {
    await this.#send('revokeAllSessions', ({ api }) =>
      api.delete(`users/${segment(uid, 'uid')}/auth_tokens`).text(),
    );
  };

  /** Every page of the user's tokens. */
  #tokens = (uid: string, operation: string) =>
    everyPage(async (page) => {
      const { data, meta } = await this.#send(operation, ({ api }) =>
        api
          .get(`users/${segment(uid, 'uid')}/auth_tokens`, {
            searchParams: { page, perPage: PER_PAGE },
          })
          .json(AuthTokenListResponseSchema),
      );
      return { data, pagination: meta };
    });
}

/** A token as the session it stands for: its fingerprint, never its value. */
function toSession(record: AuthTokenRecord): Session {
  const { appInfo } = record;
  const app =
    typeof appInfo === 'string'
      ? appInfo
      : [appInfo?.name, appInfo?.version].filter(Boolean).join(' ') || undefined;
  return {
    fingerprint: sessionFingerprint(record.authToken),
    createdAt: record.createdAt ?? 0,
    platform: record.platform ?? undefined,
    userAgent: record.userAgent ?? undefined,
    appInfo: app,
  };
}
