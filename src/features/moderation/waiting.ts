import type { KnownBlock } from '@slack/types';
import type { Logger } from 'pino';
import type { Apps, CometChatApp } from '../../apps/apps.ts';
import { counted, inApp } from '../../replies/sentences.ts';
import { section } from '../../slack/blocks.ts';
import { readQueue } from './queue.ts';

// The Home tab's count: how many messages wait for a decision, for a moderator of each app.

/**
 * How many messages wait in `app`, for a moderator; undefined for anyone else, and when
 * CometChat cannot say (the Home tab never waits on it).
 */
export async function moderationWaiting(
  app: CometChatApp,
  userId: string,
  log: Logger,
): Promise<number | undefined> {
  if ((await app.access.moderatorRefusal(userId, log)) !== undefined) return undefined;
  try {
    return (await readQueue(app.cometchat)).length;
  } catch (error) {
    log.warn({ app: app.name, err: error }, 'home: moderation queue not read');
    return undefined;
  }
}

/** The line of an app's count, or none when nothing waits or it is not the person's to see. Pure. */
export function waitingLine(count: number | undefined, appName: string | undefined): string[] {
  if (count === undefined || count === 0) return [];
  const command = `\`/cometchat ${appName ? `${appName} ` : ''}moderation\``;
  return [
    `:shield: *${counted(count, 'message')}* ${count === 1 ? 'waits' : 'wait'} for moderation${inApp(appName)}: ${command}`,
  ];
}

/** The Home tab's part: a section with each app's count, for the apps `userId` moderates. */
export function homeModeration(deps: { apps: Apps }) {
  return async (userId: string, log: Logger): Promise<KnownBlock[]> => {
    const counts = await Promise.all(
      deps.apps.all.map((app) => moderationWaiting(app, userId, log)),
    );
    const lines = deps.apps.all.flatMap((app, i) =>
      waitingLine(counts[i], deps.apps.multiple ? app.name : undefined),
    );
    return lines.length > 0 ? [section(lines.join('\n'))] : [];
  };
}
