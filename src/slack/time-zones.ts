import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { createTtlCache } from '../ttl-cache.ts';
import { zoneFormat } from '../zone-formats.ts';

// A person's time zone, as Slack knows it (users.info `tz`), for what the app reads or writes as
// a calendar day. Asked once in a while per person; UTC when Slack does not say.

export interface TimeZones {
  /** The IANA name of `userId`'s zone (`America/Los_Angeles`), else `UTC`. Never throws. */
  of(userId: string, log: Logger): Promise<string>;
}

/** A zone is kept this long: people rarely move, and a lookup per command would be wasted. */
const ZONE_TTL_MS = 10 * 60_000;

export function createTimeZones(client: WebClient, now?: () => number): TimeZones {
  const zones = createTtlCache<string>({ max: 1_000, ttlMs: ZONE_TTL_MS, now });
  return {
    async of(userId, log) {
      try {
        return await zones.get(userId, async () => {
          const answer = await client.users.info({ user: userId });
          return knownZone(answer.user?.tz) ?? 'UTC';
        });
      } catch (error) {
        log.warn({ err: error }, 'time zone not read from Slack; days are read in UTC');
        return 'UTC';
      }
    },
  };
}

/** The zone if this runtime knows it (a name Slack sends that Intl cannot use is not one). */
function knownZone(zone: string | undefined): string | undefined {
  if (!zone) return undefined;
  try {
    // Kept for the conversions that follow (zone-formats.ts).
    zoneFormat(zone, 'day');
    return zone;
  } catch {
    return undefined;
  }
}
