import { describe, expect, it } from 'vitest';
import { submitView } from '../../offline/stack/editor-steps.ts';
import { markupOf, referenceOf, textOf } from './harness.ts';
import { reviewFlip, useSharedHarness } from './support.ts';

// A modal left on "Loading…" or "Applying…" with no word is a silent failure. When Slack will not
// update the modal with the failure, the person still gets the sentence and its reference.

const UNAUTHORIZED = /CometChat refused the app's API key/;

function expectUnauthorizedWithRef(reply: Record<string, unknown>): void {
  expect(markupOf({ blocks: reply.blocks })[0]).toMatch(UNAUTHORIZED);
  const ref = referenceOf(reply);
  expect(ref).toMatch(/^[0-9a-f]{10}$/);
  expect(String(reply.text)).toContain(`(ref ${ref})`);
}

describe('a failure after "Loading…" that the modal cannot show', () => {
  const h = useSharedHarness({}, { resetAfterEach: true });

  it('the editor loads slowly, then fails, and the modal was closed meanwhile: the response_url says it', async () => {
    h.slack.setUsers([{ id: 'U0OPERATOR', is_admin: true }]);
    // Slower than the editor waits for its data, so it opens on "Loading…" first.
    h.sandbox.setLatency(700);
    h.sandbox.inject({ kind: 'status', status: 401, times: Number.POSITIVE_INFINITY });
    h.slack.fail('views.update', { error: 'not_found', times: Number.POSITIVE_INFINITY });
    const mark = h.slack.responses.length;
    await h.driver.command('perms default');
    const reply = (await h.slack.nextResponse(mark)).body;
    expectUnauthorizedWithRef(reply);
    const modal = h.slack.calls.filter((c) => c.method.startsWith('views.'));
    expect(modal.map((c) => c.method)).toEqual(['views.open', 'views.update']);
    expect(textOf(modal[0]?.args.view)).toContain('Loading the editor');
    expect(textOf(modal[1]?.args.view)).toMatch(UNAUTHORIZED);
  });
});

describe('a failure the modal cannot show', () => {
  const h = useSharedHarness(
    { env: { COMETCHAT_TIMEOUT_MS: '300', COMETCHAT_BUDGET_MS: '1200' } },
    { resetAfterEach: true },
  );

  it('the editor cannot load: the sentence and its reference come on the response_url', async () => {
    h.slack.setUsers([{ id: 'U0OPERATOR', is_admin: true }]);
    h.sandbox.inject({ kind: 'status', status: 401, times: Number.POSITIVE_INFINITY });
    // The failure is known at once, so the modal would open with it; Slack refuses the modal.
    h.slack.fail('views.open', { error: 'expired_trigger_id' });
    const mark = h.slack.responses.length;
    await h.driver.command('perms default');
    const reply = (await h.slack.nextResponse(mark)).body;
    expectUnauthorizedWithRef(reply);
    // It was tried in the modal first.
    const opens = h.slack.calls.filter((c) => c.method === 'views.open');
    expect(opens.map((c) => UNAUTHORIZED.test(textOf(c.args.view)))).toEqual([true]);
  });

  it('Apply fails: the sentence and its reference come as a direct message', async () => {
    const { confirmation } = await reviewFlip(h);
    h.sandbox.inject({ kind: 'status', status: 401, times: Number.POSITIVE_INFINITY });
    h.slack.fail('views.update', { error: 'not_found', times: Number.POSITIVE_INFINITY });
    const mark = h.slack.calls.length;
    await submitView(h, confirmation, {});
    const dm = await h.slack.waitFor(() =>
      h.slack.calls
        .slice(mark)
        .find((c) => c.method === 'chat.postMessage' && UNAUTHORIZED.test(textOf(c.args))),
    );
    const ref = referenceOf(dm.args);
    expect(ref).toMatch(/^[0-9a-f]{10}$/);
    expect(String(dm.args.channel)).toMatch(/^D/);
  });

  it('Apply succeeds but the modal cannot show it: the result comes as a direct message', async () => {
    const { confirmation } = await reviewFlip(h);
    h.slack.fail('views.update', { error: 'not_found', times: Number.POSITIVE_INFINITY });
    const mark = h.slack.calls.length;
    await submitView(h, confirmation, {});
    const dm = await h.slack.waitFor(() =>
      h.slack.calls
        .slice(mark)
        .find(
          (c) => c.method === 'chat.postMessage' && textOf(c.args).includes('Applied 1 change'),
        ),
    );
    expect(textOf(dm.args)).toContain('sendMessage');
  });
});
