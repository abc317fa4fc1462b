import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.ts';
import { createTimeZones } from '../../src/slack/time-zones.ts';
import { LogCapture } from '../log-capture.ts';

// A person's zone as Slack gives it (users.info `tz`), checked against what Intl knows.

function zonesOf(tz: Record<string, string | undefined>) {
  const client = {
    users: { info: async ({ user }: { user: string }) => ({ ok: true, user: { tz: tz[user] } }) },
  } as unknown as WebClient;
  return createTimeZones(client);
}

const log = createLogger({ level: 'warn', destination: new LogCapture() });

describe('createTimeZones', () => {
  it('answers the zone Slack gives, and UTC for one Intl does not know or none', async () => {
    const zones = zonesOf({ U1: 'Europe/Berlin', U2: 'Mars/Olympus_Mons', U3: undefined });
    expect(await zones.of('U1', log)).toBe('Europe/Berlin');
    expect(await zones.of('U2', log)).toBe('UTC');
    expect(await zones.of('U3', log)).toBe('UTC');
  });
});
