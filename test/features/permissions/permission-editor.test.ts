import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Access } from '../../../src/access/access.ts';
import { createApps, signedValue } from '../../../src/apps/apps.ts';
import { messageView } from '../../../src/changes/views.ts';
import type { CometChatClient } from '../../../src/cometchat/client.ts';
import { encodeState, newEditorState } from '../../../src/features/permissions/editor-state.ts';
import { blockIds } from '../../../src/features/permissions/editor-view.ts';
import {
  reviewResponse,
  reviewSubmission,
} from '../../../src/features/permissions/permission-editor.ts';
import { runInRequest } from '../../../src/request-context.ts';
import { createMemoryStore, type Store } from '../../../src/store/store.ts';

/** "Review changes" as a request that reached the app at `receivedAt`. */
const review = (
  deps: Parameters<typeof reviewSubmission>[0],
  submission: Parameters<typeof reviewSubmission>[1],
  receivedAt = Date.now(),
) =>
  runInRequest({ ref: 'ref0000002', log: pino({ level: 'silent' }), receivedAt }, () =>
    reviewSubmission(deps, submission),
  );
const never = <T>() => new Promise<T>(() => {});
const allowAll: Access = {
  canEdit: async () => true,
  canView: async () => true,
  editRefusal: async () => undefined,
  viewRefusal: async () => undefined,
  moderatorRefusal: async () => undefined,
  limitsViewers: false,
};

/** One app whose editors are decided by `access`. */
const appsWith = (access: Access, cometchat = {} as CometChatClient) =>
  createApps([{ name: 'default', appId: 'a', region: 'us', apiKey: 'k', cometchat, access }]);

/** Metadata as the app writes it: the JSON `encoded` gives, signed for the one app. */
function signed(encoded: string): string {
  const [app] = appsWith(allowAll).all;
  if (!app) throw new Error('no app');
  return signedValue(app, JSON.parse(encoded) as Record<string, unknown>);
}

const reviewDeps = (access: Access, store: Store = createMemoryStore()) => ({
  apps: appsWith(access),
  store,
  reviewDeadlineMs: 2_000,
  now: Date.now,
});

describe('reviewSubmission', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const submission = (privateMetadata: string) => ({
    userId: 'U0EDITOR',
    viewId: 'V1',
    privateMetadata,
    values: {},
  });
  const failureModal = (error: unknown) => messageView('Failed', String(error));
  const state = { ...newEditorState('default'), category: 'Messages' };

  it('answers at the deadline when the access check does not, and keeps the form', async () => {
    const deps = reviewDeps({ ...allowAll, editRefusal: () => never<string | undefined>() });
    const answer = review(deps, submission(signed(encodeState(state))));
    await vi.advanceTimersByTimeAsync(1_999);
    let settled = false;
    void answer.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await answer).toEqual({ kind: 'late', state });
    expect(reviewResponse(await answer, failureModal)).toEqual({
      response_action: 'errors',
      errors: { [blockIds.apply(state.render)]: expect.stringContaining('Nothing was sent') },
    });
  });

  it('answers at the deadline when the store does not', async () => {
    const store: Store = { ...createMemoryStore(), getKnownPermissions: () => never() };
    const deps = reviewDeps(allowAll, store);
    const answer = review(deps, submission(signed(encodeState(state))));
    await vi.advanceTimersByTimeAsync(2_000);
    expect((await answer).kind).toBe('late');
  });

  it("counts the deadline from the request's arrival, not from the listener", async () => {
    const limits: unknown[] = [];
    const deps = reviewDeps({
      ...allowAll,
      editRefusal: (_user: string, _log: unknown, limit?: unknown) => {
        limits.push(limit);
        return never<string | undefined>();
      },
    });
    // The viewer check took 1.5 s before the listener ran.
    const answer = review(deps, submission(signed(encodeState(state))), Date.now() - 1_500);
    expect(limits).toEqual([{ withinMs: 500 }]);
    await vi.advanceTimersByTimeAsync(500);
    expect((await answer).kind).toBe('late');
  });

  it('answers with the failure and its reference when the store fails', async () => {
    const failure = new Error('store unreachable');
    const store: Store = {
      ...createMemoryStore(),
      getKnownPermissions: () => Promise.reject(failure),
    };
    const deps = reviewDeps(allowAll, store);
    const answer = await review(deps, submission(signed(encodeState(state))));
    expect(answer).toEqual({ kind: 'failed', error: failure });
    expect(reviewResponse(answer, failureModal)).toMatchObject({
      response_action: 'update',
      view: { title: { text: 'Failed' } },
    });
  });

  it("calls metadata that is not the editor's out of date, without asking anyone", async () => {
    const editRefusal = vi.fn(allowAll.editRefusal);
    const deps = reviewDeps({ ...allowAll, editRefusal });
    expect(await review(deps, submission('{"r":"default"}'))).toEqual({
      kind: 'outdated',
    });
    expect(editRefusal).not.toHaveBeenCalled();
  });

  it('refuses someone who may not edit', async () => {
    const deps = reviewDeps({ ...allowAll, editRefusal: async () => 'Only editors may.' });
    expect(await review(deps, submission(signed(encodeState(state))))).toEqual({
      kind: 'refused',
      sentence: 'Only editors may.',
    });
  });
});
