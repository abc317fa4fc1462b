import { appNameIfMultiple, type CometChatApp, valueWriter } from '../../apps/apps.ts';
import { CometChatError } from '../../cometchat/errors.ts';
import { uidProblem } from '../../cometchat/id-rules.ts';
import { accountOf, type User } from '../../cometchat/model.ts';
import { inApp } from '../../replies/sentences.ts';
import { button, context, section } from '../../slack/blocks.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { code, escapeMrkdwn, truncate } from '../../slack/mrkdwn.ts';
import type { LinkUnfurler, UnfurlCard } from '../feature.ts';

// A dashboard link to a user, as a card: who, which role, whether the account is active, and
// the Details button that opens their full card for the person who clicks.

/** The card of a user. Pure. */
export function userLinkCard(
  user: User,
  app: CometChatApp,
  appName: string | undefined,
): UnfurlCard {
  const details = valueWriter(app)({ uid: user.uid });
  const account = accountOf(user) === 'deactivated' ? ' · :no_entry: deactivated' : '';
  return {
    blocks: [
      section(
        `*${escapeMrkdwn(truncate(user.name, 100))}*  ${code(user.uid)}\nRole ${code(user.role)} · ${escapeMrkdwn(user.status)}${account}`,
        details.length <= 2000 ? button('Details', ACTIONS.userDetails, details) : undefined,
      ),
      context([`CometChat user${inApp(appName)}`]),
    ],
  };
}

/** What a link to a user the app does not have shows. Pure. */
export function missingUserCard(uid: string, appName: string | undefined): UnfurlCard {
  return {
    blocks: [
      context([
        `CometChat has no user ${code(truncate(uid, 100))}${inApp(appName)}: the link may be old or from another app.`,
      ]),
    ],
  };
}

export const userUnfurler: LinkUnfurler = {
  section: 'users',
  idProblem: uidProblem,
  async card(id, { app, deps }) {
    const appName = appNameIfMultiple(deps.apps, app);
    try {
      const user = await app.cometchat.getUser(id);
      return userLinkCard(user, app, appName);
    } catch (error) {
      if (error instanceof CometChatError && error.kind === 'not_found') {
        return missingUserCard(id, appName);
      }
      throw error;
    }
  },
};
