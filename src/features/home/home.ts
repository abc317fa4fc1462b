import type { App, BlockAction, StaticSelectAction } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import type { Logger } from 'pino';
import { type CometChatApp, openSignedOption, signedOption } from '../../apps/apps.ts';
import { isCometChatError } from '../../cometchat/errors.ts';
import { failureSentence } from '../../replies/failure.ts';
import { currentRequest } from '../../request-context.ts';
import { ACTIONS } from '../../slack/ids.ts';
import type { SelectArgs } from '../../slack/listener-args.ts';
import type { Store } from '../../store/store.ts';
import { createTtlCache } from '../../ttl-cache.ts';
import type { ChannelAlerts, EditorOpener, RecentChange, SharedDeps } from '../deps.ts';
import type { KnownMap } from '../known-maps.ts';
import { type AppSnapshot, type HomeInput, homeView, noAccessHome } from './home-view.ts';
import { type PairApp, roleDifferences, rolesToRead } from './role-differences.ts';

// The Home tab: published for a person when they open it (and again once slow parts arrive),
// from data that is cached or fetched at once. Each CometChat app is asked for its roles at most
// once a minute, whoever opens the tab; one app failing shows in its own section only. With
// several apps, the roles both apps of a pair list are compared from the store's known maps.

/** What the tab shows of other features, supplied by the feature list (features/index.ts). */
export interface HomeParts {
  /** Requests waiting for this person's approval (with buttons) and their own open ones. */
  approvals(userId: string, log: Logger): Promise<KnownBlock[]>;
  /** The last `limit` permission changes, one line each (with _Revert_ where applied). */
  recentChanges(limit: number): Promise<RecentChange[]>;
  /** The subscriptions of the channels this person is a member of, one line each. */
  alertsInChannels(userId: string, log: Logger): Promise<ChannelAlerts>;
  /** For a moderator, how many messages wait for moderation (nothing for anyone else). */
  moderation?(userId: string, log: Logger): Promise<KnownBlock[]>;
}

export interface HomeDeps extends SharedDeps {
  parts: HomeParts;
  /** How long a publish waits for CometChat and access checks before drawing them as pending. */
  waitMs?: number;
}

/** An app's roles (and so its key's state) are reused this long, whoever opens the tab. */
export const SNAPSHOT_TTL_MS = 60_000;
const RECENT_CHANGES = 10;

export interface Home {
  /** Draws and publishes `userId`'s tab; once more when parts that were slow have arrived. */
  publish(userId: string, log: Logger): Promise<void>;
}

/** Each app's roles (and so its key's state), asked of CometChat once a minute at most. */
function snapshotLoader(deps: Pick<HomeDeps, 'budgetSeconds' | 'secrets'>) {
  const snapshots = createTtlCache<AppSnapshot>({ max: 100, ttlMs: SNAPSHOT_TTL_MS });
  return (app: CometChatApp, log: Logger): Promise<AppSnapshot> =>
    snapshots.get(app.name, async () => {
      try {
        const roles = await app.cometchat.listAllRoles();
        return { state: 'ok', roles: roles.map((r) => ({ role: r.role, name: r.name })) };
      } catch (error) {
        log.warn({ app: app.name, err: error }, 'home: role list failed');
        const ref = isCometChatError(error) ? error.ref : 'none';
        if (isCometChatError(error) && error.kind === 'unauthorized') {
          return { state: 'refused', ref };
        }
        return { state: 'failed', sentence: failureSentence(error, deps), ref };
      }
    });
}

const rolesOf = (snapshot: AppSnapshot): PairApp['roles'] => {
  if (snapshot.state === 'ok') return snapshot.roles.map((r) => r.role);
  return snapshot.state === 'loading' ? 'loading' : 'unread';
};

/**
 * The roles that differ between each pair of `apps`, from the snapshots as drawn: the known maps
 * of the roles both apps of a pair list are read from the store, each once per publish (a tab
 * drawn twice reads again only what a late app adds). Undefined with fewer than two apps.
 */
function differencesOf(
  apps: readonly CometChatApp[],
  store: Pick<Store, 'getKnownPermissions'>,
  log: Logger,
) {
  const read = new Map<string, Promise<KnownMap>>();
  const readOnce = (app: string, role: string) => {
    const key = JSON.stringify([app, role]);
    const known = read.get(key) ?? store.getKnownPermissions(app, role);
    read.set(key, known);
    return known;
  };
  return async (shown: readonly AppSnapshot[]): Promise<HomeInput['differences']> => {
    if (apps.length < 2) return undefined;
    const pairApps = apps.map((app, i) => ({
      name: app.name,
      roles: rolesOf(shown[i] ?? { state: 'loading' }),
    }));
    const wanted = [...rolesToRead(pairApps)].flatMap(([app, roles]) =>
      roles.map((role) => [app, role] as const),
    );
    try {
      const maps = await Promise.all(wanted.map(([app, role]) => readOnce(app, role)));
      const byKey = new Map(wanted.map(([app, role], i) => [JSON.stringify([app, role]), maps[i]]));
      return roleDifferences(pairApps, (app, role) => byKey.get(JSON.stringify([app, role])));
    } catch (error) {
      log.warn({ err: error }, 'home: known permissions not read');
      return 'unread';
    }
  };
}

/**
 * The other features' parts. The store's are local and quick: awaited. The alerts', which ask
 * Slack for the person's channels, are waited for like CometChat's, a moment at most.
 */
async function readParts(parts: HomeParts, userId: string, log: Logger) {
  const alerts = parts.alertsInChannels(userId, log).catch((error: unknown) => {
    log.warn({ err: error }, 'home: alerts in channels not read');
    return 'unread' as const;
  });
  const [approvals, recent] = await Promise.all([
    parts.approvals(userId, log).catch((error: unknown) => {
      log.warn({ err: error }, 'home: approvals not read');
      return [];
    }),
    parts.recentChanges(RECENT_CHANGES).catch((error: unknown) => {
      log.warn({ err: error }, 'home: audit trail not read');
      return undefined;
    }),
  ]);
  return { approvals, recent, alerts };
}

export function createHome(deps: HomeDeps): Home {
  const waitMs = deps.waitMs ?? 700;
  const snapshotOf = snapshotLoader(deps);

  async function publish(userId: string, log: Logger): Promise<void> {
    const refusal = await deps.access.viewRefusal(userId, log, { withinMs: waitMs });
    if (refusal) {
      await deps.views.publish({ user_id: userId, view: noAccessHome(refusal) });
      return;
    }
    const apps = deps.apps.all;
    const pending = apps.map((app) => snapshotOf(app, log));
    const editable = apps.map((app) =>
      app.access.editRefusal(userId, log, { withinMs: waitMs }).then(
        (no) => no === undefined,
        () => false,
      ),
    );
    const { approvals, recent, alerts } = await readParts(deps.parts, userId, log);
    const waiting = (deps.parts.moderation?.(userId, log) ?? Promise.resolve([])).catch(() => []);
    const late = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), waitMs));
    // VIEWERS is one list for every app: whoever passed the check above may view each of them.
    const differences = differencesOf(apps, deps.store, log);
    const draw = async (wait: boolean) => {
      const shown = await Promise.all(
        pending.map(async (snapshot) => {
          const got = wait ? await snapshot : await Promise.race([snapshot, late]);
          return got === 'late' ? ({ state: 'loading' } as const) : got;
        }),
      );
      const editors = await Promise.all(editable);
      const inChannels = wait ? await alerts : await Promise.race([alerts, late]);
      const moderation = wait ? await waiting : await Promise.race([waiting, late]);
      return {
        loading:
          shown.some((s) => s.state === 'loading') ||
          inChannels === 'late' ||
          moderation === 'late',
        view: homeView({
          multiple: deps.apps.multiple,
          approvals: [...(moderation === 'late' ? [] : moderation), ...approvals],
          apps: apps.map((app, i) => ({
            name: app.name,
            region: app.region,
            snapshot: shown[i] ?? { state: 'loading' },
            editable: editors[i] ?? false,
            optionValue: (role: string) => signedOption(app, role),
          })),
          recent,
          alerts: inChannels === 'late' ? undefined : inChannels,
          differences: await differences(shown),
          at: deps.now(),
        }),
      };
    };
    const first = await draw(false);
    await deps.views.publish({ user_id: userId, view: first.view });
    if (!first.loading) return;
    // An app (or Slack, for the alerts) that was slow is drawn again once it answers.
    const final = await draw(true);
    await deps.views.publish({ user_id: userId, view: final.view });
  }

  return { publish };
}

/**
 * The tab's own listeners: publishing it when opened, and a role picked in an app's section,
 * which opens the permissions feature's editor (given as `openEditor`). The tab's other buttons
 * belong to the features they open, which register them.
 */
export function registerHome(
  bolt: App,
  deps: Pick<HomeDeps, 'apps'>,
  home: Home,
  openEditor: EditorOpener,
): void {
  bolt.event('app_home_opened', async ({ event }) => {
    if (event.tab !== 'home') return;
    await home.publish(event.user, currentRequest().log);
  });

  bolt.action<BlockAction<StaticSelectAction>>(
    ACTIONS.homeEditRole,
    async ({ ack, body, action }: SelectArgs) => {
      await ack();
      // A select cleared by the person sends no option: there is nothing to open.
      const value = action.selected_option?.value;
      if (value === undefined) return;
      // The option names its role, signed for its app: one made by hand, or of an app no longer
      // configured, is refused before anything is asked of CometChat.
      const { app, text: role } = openSignedOption(deps.apps, value);
      await openEditor(body.trigger_id, app, role, body.user.id);
    },
  );
}
