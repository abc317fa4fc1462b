import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OFFLINE_SECRETS } from '../../offline/stack/offline-stack.ts';
import { commandText, type Harness, startHarness } from './harness.ts';

// Secrets mounted as files, as Docker and Kubernetes do: the app reads the CometChat key and
// the signing secret from `<NAME>_FILE` and works with them; read, they are secrets like any
// other (the logger's scrubber knows them; secrets.test.ts runs every flow without it).

describe('secrets from files', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('signs and calls CometChat with secrets read from files, which the logs and replies never show', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'secrets-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const apiKeyFile = join(dir, 'cometchat-api-key');
    const signingFile = join(dir, 'slack-signing-secret');
    await writeFile(apiKeyFile, `${OFFLINE_SECRETS.apiKey}\n`);
    await writeFile(signingFile, OFFLINE_SECRETS.signingSecret);
    const h: Harness = await startHarness({
      env: {
        LOG_LEVEL: 'debug',
        COMETCHAT_API_KEY: undefined,
        COMETCHAT_API_KEY_FILE: apiKeyFile,
        SLACK_SIGNING_SECRET: undefined,
        SLACK_SIGNING_SECRET_FILE: signingFile,
      },
    });
    cleanup.push(() => h.stop());
    expect(h.config.cometchat.apps[0]?.apiKey).toBe(OFFLINE_SECRETS.apiKey);
    // The request is verified with the file's secret, and CometChat takes the file's key.
    expect(await commandText(h, 'roles')).toContain('CometChat roles');
    expect(h.logs.lines.length).toBeGreaterThan(0);
    for (const secret of Object.values(OFFLINE_SECRETS)) {
      expect(h.logs.text()).not.toContain(secret);
      expect(JSON.stringify(h.slack.responses)).not.toContain(secret);
    }
    // The scrubber's list holds them, as it holds a secret set directly.
    expect(h.config.secrets).toEqual(expect.arrayContaining(Object.values(OFFLINE_SECRETS)));
  });
});
