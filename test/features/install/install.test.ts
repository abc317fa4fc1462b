import { describe, expect, it } from 'vitest';
import {
  installationId,
  isStopped,
  markStopped,
  unlessStopped,
} from '../../../src/features/install/index.ts';
import { createLogger } from '../../../src/log.ts';
import { createMemoryStore } from '../../../src/store/store.ts';
import { LogCapture } from '../../log-capture.ts';

const OLD_TOKEN = 'xoxb-1111-old-SeCrEt';
const NEW_TOKEN = 'xoxb-1111-new-SeCrEt';

describe('the installation mark', () => {
  it('is keyed by a hash of the bot token, never the token', () => {
    const id = installationId(OLD_TOKEN);
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(id).not.toContain('SeCrEt');
    expect(installationId(NEW_TOKEN)).not.toBe(id);
  });

  it('stops the periodic work of that token only: a new token serves again', async () => {
    let time = 1_800_000_000_000;
    const store = createMemoryStore(() => time);
    const logs = new LogCapture();
    const log = createLogger({ level: 'debug', destination: logs });
    const old = { store, installation: installationId(OLD_TOKEN) };
    const renewed = { store, installation: installationId(NEW_TOKEN) };
    let runs = 0;
    const work = async () => {
      runs += 1;
    };
    await markStopped(old, 'The app was uninstalled from the workspace', log);
    expect(await isStopped(old)).toBe(true);
    // Fifty years on the mark still holds: it is a flag, not a lease.
    time += 50 * 365 * 86_400_000;
    expect(await isStopped(old)).toBe(true);
    const oldPeriodic = unlessStopped(old, work);
    await oldPeriodic(log);
    await oldPeriodic(log);
    expect(runs).toBe(0);
    await unlessStopped(renewed, work)(log);
    expect(runs).toBe(1);
    const errors = logs.errors().map((r) => r.message);
    // The event's line, then the periodic work's, once however often it runs.
    expect(errors).toHaveLength(2);
    expect(errors[0]).toBe(
      'The app was uninstalled from the workspace: the app has stopped serving this workspace (no periodic work, no posts to Slack); nothing was deleted. To serve it again, reinstall the app, set the new SLACK_BOT_TOKEN and restart.',
    );
    expect(logs.text()).not.toContain('SeCrEt');
  });
});
