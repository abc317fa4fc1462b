import { z } from 'zod';
import { FingerprintSchema } from '../../changes/index.ts';
import { UidSchema } from '../../cometchat/id-rules.ts';
import { AccountSchema } from '../../cometchat/model.ts';

// What the users feature's buttons carry (signed for their app), read back by their listeners:
// each defined once, for the card and the lists that write them and the listeners that read them.

/** A button about one user: Details, Change role. */
export const UidValue = z.object({ uid: UidSchema });

/** Deactivate or Reactivate: the user, and the account they are to have. */
export const AccountValue = UidValue.extend({ to: AccountSchema });

/** A session's Revoke: the user, and the session's fingerprint (never its token). */
export const SessionValue = UidValue.extend({ session: FingerprintSchema });
