import { describe, expect, it } from 'vitest';
import { openEditor, submitView, withFieldSet } from '../../offline/stack/editor-steps.ts';
import { createMemoryStore, type Store } from '../../src/store/store.ts';
import { useHarnessStarter } from './support.ts';

// Slack allows three seconds for the answer to a modal submission, from the click. "Review
// changes" asks the access rules and the store; when either hangs, Slack still gets an answer in
// time, and nothing is sent to CometChat. (An access check that hangs is bounded by its own
// budget, see test/access/access.test.ts, and by the same deadline, see
// test/features/permissions/permission-editor.test.ts.)

const SLACK_DEADLINE_MS = 3_000;

/** A memory store whose reads of last known permissions can be made to hang. */
function stallableStore(): Store & { stall(): void } {
  const store = createMemoryStore();
  let stalled = false;
  return {
    ...store,
    getKnownPermissions: (app, role) =>
      stalled ? new Promise(() => {}) : store.getKnownPermissions(app, role),
    stall: () => {
      stalled = true;
    },
  };
}

describe('"Review changes" within Slack\'s deadline', () => {
  const start = useHarnessStarter();

  it('answers in time with the form kept when the store hangs', async () => {
    const store = stallableStore();
    const h = await start({ store });
    const editor = await openEditor(h, 'default');
    store.stall();
    const started = performance.now();
    const answer = await submitView(h, editor, withFieldSet(editor, 'listUsers', 'deny'));
    expect(performance.now() - started).toBeLessThan(SLACK_DEADLINE_MS);
    expect(answer.status).toBe(200);
    expect(answer.response_action).toBe('errors');
    expect(Object.values(answer.errors ?? {}).join(' ')).toContain('Nothing was sent');
    expect(h.sandbox.requests.filter((r) => r.method === 'PUT')).toHaveLength(0);
    expect(
      h.logs.records().some((r) => r.message === 'editor: review not checked in time; asked again'),
    ).toBe(true);
  });
});
