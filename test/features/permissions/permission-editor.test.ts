import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Access } from '../../../src/access/access.ts';
import { createApps, sealFor } from '../../../src/apps/apps.ts';
import type { CometChatClient } from '../../../src/cometchat/client.ts';
import { CometChatError } from '../../../src/cometchat/errors.ts';
import type { EditorDeps } from '../../../src/features/permissions/editor-context.ts';
import {
  encodeConfirm,
  encodeState,
  newEditorState,
} from '../../../src/features/permissions/editor-state.ts';
import { blockIds, messageView } from '../../../src/features/permissions/editor-view.ts';
import {
  createApplySubmission,
  reviewResponse,
  reviewSubmission,
} from '../../../src/features/permissions/permission-editor.ts';
import { createLogger } from '../../../src/log.ts';
import type { Deliverer } from '../../../src/slack/deliver.ts';
import type { Views } from '../../../src/slack/views.ts';
import { createMemoryStore, type Store } from '../../../src/store/store.ts';
import { ShownFailure } from '../../../src/voice/failure.ts';
import { LogCapture } from '../../log-capture.ts';

const scope = (receivedAt = Date.now()) => ({
  ref: 'ref0000002',
  log: pino({ level: 'silent' }),
  receivedAt,
});
const never = <T>() => new Promise<T>(() => {});
const allowAll: Access = {
  canEdit: async () => true,
  canView: async () => true,
  editRefusal: async () => undefined,
  viewRefusal: async () => undefined,
};

/** One app whose editors are decided by `access`. */
const appsWith = (access: Access, cometchat = {} as CometChatClient) =>
  createApps([{ name: 'default', appId: 'a', region: 'us', apiKey: 'k', cometchat, access }]);

/** Metadata as the app writes it: the JSON `encoded` gives, sealed for the one app. */
function sealed(encoded: string): string {
  const [app] = appsWith(allowAll).all;
  if (!app) throw new Error('no app');
  return sealFor(app, JSON.parse(encoded) as Record<string, unknown>);
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

  const submission = (privateMetadata: string, receivedAt = Date.now()) => ({
    userId: 'U0EDITOR',
    viewId: 'V1',
    privateMetadata,
    values: {},
    scope: scope(receivedAt),
  });
  const failureModal = (error: unknown) => messageView('Failed', String(error));
  const state = { ...newEditorState('default'), category: 'Messages' };

  it('answers at the deadline when the access check does not, and keeps the form', async () => {
    const deps = reviewDeps({ ...allowAll, editRefusal: () => never<string | undefined>() });
    const answer = reviewSubmission(deps, submission(sealed(encodeState(state))));
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
    const answer = reviewSubmission(deps, submission(sealed(encodeState(state))));
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
    const answer = reviewSubmission(
      deps,
      submission(sealed(encodeState(state)), Date.now() - 1_500),
    );
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
    const answer = await reviewSubmission(deps, submission(sealed(encodeState(state))));
    expect(answer).toEqual({ kind: 'failed', error: failure });
    expect(reviewResponse(answer, failureModal)).toMatchObject({
      response_action: 'update',
      view: { title: { text: 'Failed' } },
    });
  });

  it("calls metadata that is not the editor's out of date, without asking anyone", async () => {
    const editRefusal = vi.fn(allowAll.editRefusal);
    const deps = reviewDeps({ ...allowAll, editRefusal });
    expect(await reviewSubmission(deps, submission('{"r":"default"}'))).toEqual({
      kind: 'outdated',
    });
    expect(editRefusal).not.toHaveBeenCalled();
  });

  it('refuses someone who may not edit', async () => {
    const deps = reviewDeps({ ...allowAll, editRefusal: async () => 'Only editors may.' });
    expect(await reviewSubmission(deps, submission(sealed(encodeState(state))))).toEqual({
      kind: 'refused',
      sentence: 'Only editors may.',
    });
  });
});

describe('the Apply listener', () => {
  const meta = {
    role: 'default',
    id: 'b'.repeat(24),
    changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
  };

  function setup(options: {
    updateFails: boolean;
    cometchatFails: boolean;
    auditStored?: boolean;
  }) {
    const updates: unknown[] = [];
    const delivered: unknown[] = [];
    const fail = async () => {
      throw Object.assign(new Error('x'), { data: { error: 'not_found' } });
    };
    const views: Views = {
      async update(args) {
        updates.push(args);
        if (options.updateFails) await fail();
      },
      open: fail,
      push: fail,
      publish: fail,
    };
    const cometchat = {
      async setRolePermissions() {
        if (options.cometchatFails) {
          throw new CometChatError({
            kind: 'unavailable',
            ref: 'r',
            operation: 'setRolePermissions',
          });
        }
        return { permissions: { sendMessage: 'deny' }, results: {} };
      },
    } as unknown as CometChatClient;
    const deliver: Deliverer = async (_destination, message) => {
      delivered.push(message);
      return 'dm';
    };
    const logs = new LogCapture();
    const deps: EditorDeps = {
      apps: appsWith(allowAll, cometchat),
      deliver,
      views,
      budgetSeconds: 8,
      secrets: [],
      store: createMemoryStore(),
      audit: { record: async () => ({ stored: options.auditStored ?? true }) },
      now: () => 1_000,
      reviewDeadlineMs: 2_000,
      loadingViewAfterMs: 400,
      approvalTtlMs: 3_600_000,
    };
    const acks: unknown[] = [];
    const args = {
      ack: async (response: unknown) => {
        acks.push(response);
      },
      view: { id: 'V9', private_metadata: sealed(encodeConfirm(meta)), state: { values: {} } },
      body: { type: 'view_submission', user: { id: 'U0EDITOR' }, team: { id: 'T1' } },
      context: {
        scope: { ref: 'ref0000003', log: createLogger({ level: 'debug', destination: logs }) },
      },
    } as unknown as Parameters<ReturnType<typeof createApplySubmission>>[0];
    return { run: () => createApplySubmission(deps)(args), updates, delivered, acks };
  }

  it('marks a failure as shown once the modal shows it', async () => {
    const { run, updates } = setup({ updateFails: false, cometchatFails: true });
    const error = await run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShownFailure);
    expect((error as ShownFailure).cause).toBeInstanceOf(CometChatError);
    expect(JSON.stringify(updates)).toContain('ref0000003');
  });

  it('leaves a failure unshown when the modal cannot show it, for the error handler to deliver', async () => {
    const { run, acks } = setup({ updateFails: true, cometchatFails: true });
    const error = await run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CometChatError);
    expect(error).not.toBeInstanceOf(ShownFailure);
    expect(acks).toHaveLength(1);
  });

  it('delivers an applied change as a message when the modal cannot show it', async () => {
    const { run, delivered } = setup({ updateFails: true, cometchatFails: false });
    await run();
    expect(JSON.stringify(delivered)).toContain('Applied 1 change to');
    expect(JSON.stringify(delivered)).not.toContain('audit record');
  });

  it('says in that message too when the audit record was not stored', async () => {
    const { run, delivered } = setup({
      updateFails: true,
      cometchatFails: false,
      auditStored: false,
    });
    await run();
    expect(JSON.stringify(delivered)).toContain('its audit record could not be stored');
  });
});
