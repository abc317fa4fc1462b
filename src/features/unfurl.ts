import type { App } from '@slack/bolt';
import type { Button, LinkUnfurls } from '@slack/types';
import type { Logger } from 'pino';
import type { Apps, CometChatApp } from '../apps/apps.ts';
import { CometChatError } from '../cometchat/errors.ts';
import { currentRequest } from '../request-context.ts';
import { plain } from '../slack/blocks.ts';
import { ACTIONS } from '../slack/ids.ts';
import type { AppDeps } from './deps.ts';
import type { LinkUnfurler, UnfurlCard } from './feature.ts';

// CometChat dashboard links posted in a channel the app is in, shown as cards (`link_shared`,
// then `chat.unfurl`). Each feature says which links it can show (Feature.unfurlers); this file
// reads a link, picks the app and the unfurler, and checks the person, once for all of them.

/** The dashboard's host: the manifest's `unfurl_domains` names it too (test/manifest.test.ts). */
export const DASHBOARD_DOMAIN = 'app.cometchat.com';

/**
 * Slack sends the links of one message together; a message pasting a page of them still costs
 * CometChat only this many requests, the first links in the order Slack gives.
 */
export const MAX_UNFURLS = 5;

/** What a dashboard link names: the app by its CometChat id, a section, an item in it. */
export interface DashboardLink {
  url: string;
  appId: string;
  section: string;
  id: string;
}

/**
 * Reads `https://app.cometchat.com/app/<appId>/<section>/<id>[/...]`. The dashboard documents no
 * addresses; its pages are `/app/<appId>/users`, `/app/<appId>/overview` and the like, and an
 * item's page adds its id. Anything else (another host, a page without an item, an id that does
 * not decode) names nothing: no card.
 */
export function readDashboardLink(url: string): DashboardLink | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' || parsed.hostname.toLowerCase() !== DASHBOARD_DOMAIN) {
    return undefined;
  }
  const [first, appId, section, rawId] = parsed.pathname.split('/').slice(1);
  if (first !== 'app' || !appId || !section || !rawId) return undefined;
  const id = decodeSegment(rawId);
  return id === undefined ? undefined : { url, appId, section: section.toLowerCase(), id };
}

/** The dashboard's sections a card links back to: those the unfurlers read (users, roles, calls). */
export type DashboardSection = 'users' | 'roles' | 'calls';

/** Slack's longest `url` on a button. */
const MAX_BUTTON_URL = 3000;

/**
 * The dashboard's address of one item of an app: the inverse of {@link readDashboardLink}, so a
 * card's link, pasted back into Slack, unfurls into the same card. Undefined when the app's
 * CometChat id is unknown (the address needs it). Pure.
 */
export function dashboardAddress(
  appId: string | undefined,
  section: DashboardSection,
  id: string,
): string | undefined {
  if (!appId) return undefined;
  const path = ['app', appId, section, id].map(encodeURIComponent).join('/');
  return `https://${DASHBOARD_DOMAIN}/${path}`;
}

/**
 * "Open in CometChat": a link button to the item's dashboard page; none without the app's id, or
 * when the address is longer than Slack takes. Slack still sends a click on it to the app, which
 * only acknowledges it (registerUnfurls). Pure.
 */
export function openInCometChat(
  appId: string | undefined,
  section: DashboardSection,
  id: string,
): Button | undefined {
  const url = dashboardAddress(appId, section, id);
  if (!url || url.length > MAX_BUTTON_URL) return undefined;
  return {
    type: 'button',
    text: plain('Open in CometChat'),
    action_id: ACTIONS.openInCometChat,
    url,
  };
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** One link to unfurl: the app it names, the feature that shows it, and the item's id. */
export interface PlannedUnfurl {
  url: string;
  app: CometChatApp;
  unfurler: LinkUnfurler;
  id: string;
}

/**
 * Which of the shared links get a card: dashboard links of an app this install serves (matched by
 * its CometChat app id), to a section a feature shows, with an id that can be one. Each url once,
 * at most {@link MAX_UNFURLS}. Pure.
 */
export function planUnfurls(
  links: readonly { url: string }[],
  apps: Pick<Apps, 'all'>,
  unfurlers: readonly LinkUnfurler[],
): PlannedUnfurl[] {
  const planned = new Map<string, PlannedUnfurl>();
  for (const { url } of links) {
    const link = readDashboardLink(url);
    if (!link || planned.has(url)) continue;
    const app = apps.all.find((a) => a.appId?.toLowerCase() === link.appId.toLowerCase());
    const unfurler = unfurlers.find((u) => u.section === link.section);
    if (!app || !unfurler || unfurler.idProblem(link.id) !== undefined) continue;
    planned.set(url, { url, app, unfurler, id: link.id });
  }
  return [...planned.values()].slice(0, MAX_UNFURLS);
}

/** Where `chat.unfurl` puts the cards: the composer's preview, or the posted message. */
export function unfurlTarget(event: {
  channel: string;
  message_ts: string;
  unfurl_id?: string | undefined;
  source?: string | undefined;
}):
  | { unfurl_id: string; source: 'composer' | 'conversations_history' }
  | {
      channel: string;
      ts: string;
    } {
  if (event.unfurl_id && (event.source === 'composer' || event.source === 'conversations_history'))
    return { unfurl_id: event.unfurl_id, source: event.source };
  return { channel: event.channel, ts: event.message_ts };
}

/**
 * `link_shared`: the cards of the links this install can show, for a person who may view. Nothing
 * is posted for anyone else, nor for a link whose item could not be read (logged): a card is a
 * courtesy, and a channel is no place for a failure sentence nobody asked for.
 */
export function registerUnfurls(
  bolt: App,
  unfurlers: readonly LinkUnfurler[],
  deps: AppDeps,
): void {
  // The cards' "Open in CometChat" opens the page in the browser; Slack sends the click here
  // too, and expects it acknowledged like any other.
  bolt.action(ACTIONS.openInCometChat, async ({ ack }) => {
    await ack();
  });
  if (unfurlers.length === 0) return;
  bolt.event('link_shared', async ({ event, client }) => {
    const { log } = currentRequest();
    const planned = planUnfurls(event.links, deps.apps, unfurlers);
    if (planned.length === 0) {
      log.info({ links: event.links.length }, 'links not unfurled: no app or page we show');
      return;
    }
    if ((await deps.access.viewRefusal(event.user, log)) !== undefined) {
      log.info({ user: event.user }, 'links not unfurled: not a viewer');
      return;
    }
    const unfurls = await cardsFor(planned, event.user, deps);
    if (Object.keys(unfurls).length === 0) {
      log.info({ links: planned.length }, 'links not unfurled: no card could be made');
      return;
    }
    await client.chat.unfurl({ ...unfurlTarget(event), unfurls });
    log.info({ links: Object.keys(unfurls).length }, 'links unfurled');
  });
}

/** Each planned link's card, read together; a link whose card fails is left out (logged). */
async function cardsFor(
  planned: readonly PlannedUnfurl[],
  userId: string,
  deps: AppDeps,
): Promise<LinkUnfurls> {
  const cards = await Promise.all(
    planned.map(({ app, unfurler, id }) =>
      unfurler.card(id, { app, userId, deps }).catch((error: unknown) => {
        logFailedCard(currentRequest().log, unfurler.section, error);
        return undefined;
      }),
    ),
  );
  const unfurls: LinkUnfurls = {};
  planned.forEach(({ url }, index) => {
    const card: UnfurlCard | undefined = cards[index];
    if (card) unfurls[url] = { blocks: card.blocks };
  });
  return unfurls;
}

function logFailedCard(log: Logger, section: string, error: unknown): void {
  if (error instanceof CometChatError) {
    log.warn({ section, kind: error.kind, ref: error.ref }, 'link not unfurled: CometChat failed');
    return;
  }
  log.error({ section, err: error }, 'link not unfurled');
}
