import type { CometChatApp } from '../../apps/apps.ts';
import { currentRequest } from '../../request-context.ts';
import type { KnownPermissions } from '../../store/store.ts';
import type { SharedDeps } from '../deps.ts';

/**
 * What this app last saw of a role's permissions. A store that cannot answer is logged and read
 * as "not known": the card, "can" and a role change's review then say what they cannot tell (the
 * documented defaults), rather than fail.
 */
export async function knownOf(
  deps: Pick<SharedDeps, 'store'>,
  app: Pick<CometChatApp, 'name'>,
  role: string,
): Promise<KnownPermissions | undefined> {
  try {
    return await deps.store.getKnownPermissions(app.name, role);
  } catch (error) {
    currentRequest().log.warn(
      { err: error, role },
      'known permissions not read; shown as not known',
    );
    return undefined;
  }
}
