import { describe, expect, it } from 'vitest';
import { whyNotActionable } from '../../src/changes/decide.ts';
import type { ApprovalRequest } from '../../src/store/store.ts';

// Whether a click may act on the request it names, decided without a store.

const request: ApprovalRequest = {
  id: 'a'.repeat(24),
  app: 'prod',
  role: 'default',
  changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
  teamId: 'T1',
  requester: 'U0OPERATOR',
  requestedAt: 1_000,
  expiresAt: 9_000,
  channel: 'C0APPROVE',
  status: 'open',
};

describe('whyNotActionable', () => {
  it('lets an open request through before it expires', () => {
    expect(whyNotActionable(request, 'prod', 9_000, false)).toBeUndefined();
  });

  it("refuses a request it does not know, or another app's", () => {
    const unknown = 'That request is out of date or unknown; nothing was sent.';
    expect(whyNotActionable(undefined, 'prod', 2_000, true)).toEqual({ sentence: unknown });
    expect(whyNotActionable(request, 'staging', 2_000, true)).toEqual({ sentence: unknown });
  });

  it('lets a failed or unknown request through for Retry only', () => {
    for (const status of ['failed', 'unknown'] as const) {
      expect(whyNotActionable({ ...request, status }, 'prod', 2_000, true)).toBeUndefined();
      expect(whyNotActionable({ ...request, status }, 'prod', 2_000, false)).toEqual({
        sentence: `This request is already closed (${status}); nothing was sent.`,
      });
    }
  });

  it('refuses a closed request, even for Retry', () => {
    for (const status of ['applied', 'rejected', 'expired', 'stale'] as const) {
      expect(whyNotActionable({ ...request, status }, 'prod', 2_000, true)?.sentence).toBe(
        `This request is already closed (${status}); nothing was sent.`,
      );
    }
  });

  it('refuses a request past its expiry, to be marked expired', () => {
    expect(whyNotActionable(request, 'prod', 9_001, false)).toEqual({
      sentence: 'This request has expired; nothing was sent. Ask again from the editor.',
      expire: true,
    });
    expect(whyNotActionable({ ...request, status: 'failed' }, 'prod', 9_001, true)?.expire).toBe(
      true,
    );
  });
});
