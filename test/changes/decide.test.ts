import { describe, expect, it } from 'vitest';
import { BEING_DECIDED, takeDecision, whyNotActionable } from '../../src/changes/decide.ts';
import { type ApprovalRequest, createMemoryStore } from '../../src/store/store.ts';

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
  });

  it('refuses a Retry past the expiry, keeping the attempt as it was', () => {
    for (const status of ['failed', 'unknown'] as const) {
      expect(whyNotActionable({ ...request, status }, 'prod', 9_001, true)).toEqual({
        sentence: `This request has expired; its last attempt stands (${status}), and nothing was sent now. Ask again from the editor.`,
      });
    }
  });
});

describe('takeDecision', () => {
  it('lets one decision through, tells the next one someone is deciding, then what became of it', async () => {
    const store = createMemoryStore(() => 1_000);
    await store.putApproval(request);
    const first = await takeDecision({ store }, request);
    expect(first).toEqual({ request });
    expect(await takeDecision({ store }, request)).toEqual({ sentence: BEING_DECIDED });
    // The first decided it (rejected) and keeps its claim; once that lapses, the request read
    // again says what became of it.
    await store.putApproval({ ...request, status: 'rejected', decidedBy: 'U0LEAD' });
    await store.release(`decide:${request.id}`);
    expect(await takeDecision({ store }, request)).toEqual({
      sentence: 'This request is already closed (rejected by <@U0LEAD>); nothing was sent.',
    });
    // A closed request's claim is let go again, so it never holds anyone up.
    expect(await store.claim(`decide:${request.id}`, 120)).toBe(true);
  });
});
