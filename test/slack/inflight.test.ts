import { describe, expect, it } from 'vitest';
import { createInflight } from '../../src/slack/inflight.ts';

// What a stop waits for: Bolt's requests through the middleware, webhooks through begin().

describe('createInflight', () => {
  it('is idle once every request begun has ended, each end counted once', async () => {
    const inflight = createInflight();
    const endWebhook = inflight.begin();
    let release: () => void = () => {};
    const bolt = inflight.middleware({
      next: () => new Promise<void>((resolve) => (release = resolve)),
    } as never);
    expect(inflight.count()).toBe(2);
    const idle = inflight.idle(5_000);
    endWebhook();
    endWebhook();
    expect(inflight.count()).toBe(1);
    release();
    await bolt;
    expect(await idle).toBe(true);
    expect(inflight.count()).toBe(0);
  });

  it('gives up waiting after the grace', async () => {
    const inflight = createInflight();
    inflight.begin();
    expect(await inflight.idle(10)).toBe(false);
  });
});
