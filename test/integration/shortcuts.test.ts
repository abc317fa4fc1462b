import { describe, expect, it } from 'vitest';
import { SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import type { StateValues } from '../../offline/slack-standin/driver.ts';
import {
  expectNoInjectedMarkup,
  type Harness,
  logsWithRef,
  markupOf,
  referenceOf,
  textOf,
} from './harness.ts';
import { callRequests, useHarness } from './support.ts';

type View = Record<string, unknown>;

function lookupValues(sessionId: string, onBehalfOf?: string): StateValues {
  return {
    lookup_session: { session_id: { type: 'plain_text_input', value: sessionId } },
    lookup_on_behalf_of: {
      on_behalf_of: { type: 'plain_text_input', value: onBehalfOf ?? null },
    },
  };
}

/** Opens the global shortcut's form and resolves with it as the stand-in holds it. */
async function openLookupForm(h: Harness): Promise<View & { id: string; hash: string }> {
  const before = h.slack.calls.length;
  const sent = await h.driver.interaction(
    h.driver.globalShortcut({ callbackId: 'lookup_call_global' }),
  );
  expect(sent.status).toBe(200);
  const opened = await h.slack.nextCall('views.open', before);
  expect(opened.args.view).toMatchObject({ callback_id: 'lookup_call_modal' });
  const view = [...h.slack.views.values()].at(-1);
  if (!view) throw new Error('no modal was opened');
  return view;
}

/** Submits the form; resolves with the app's answer and the view it then filled in. */
async function submitLookup(h: Harness, form: View, values: StateValues) {
  const before = h.slack.calls.length;
  const sent = await h.driver.interaction(h.driver.viewSubmission({ view: form, values }));
  expect(sent.status).toBe(200);
  const answer = JSON.parse(sent.body || '{}') as Record<string, unknown>;
  return { answer, sent, before };
}

describe('shortcuts through the real app', () => {
  const h = useHarness();

  it('"Look up call" on a message finds the session id in its text', async () => {
    const sent = await h.driver.interaction(
      h.driver.messageShortcut({
        callbackId: 'lookup_call_message',
        message: {
          ts: '1700000100.000200',
          text: `Customer says the call ${SANDBOX_SESSION_IDS.audioEnded} dropped, please check`,
        },
      }),
    );
    expect(sent.status).toBe(200);
    const reply = (await h.slack.nextResponse(0)).body;
    expect(textOf(reply)).toContain('Audio call · ended');
    expect(markupOf(reply).join('\n')).toContain(`Session \`${SANDBOX_SESSION_IDS.audioEnded}\``);
    expect(callRequests(h).map((r) => r.path)).toEqual([
      `/v3/calls/${SANDBOX_SESSION_IDS.audioEnded}`,
    ]);
  });

  it('several ids: one reply each, an unknown one answered with its failure', async () => {
    const unknown = 'v1.us.sandbox-app.1799999999deadbeef';
    await h.driver.interaction(
      h.driver.messageShortcut({
        callbackId: 'lookup_call_message',
        message: {
          ts: '1700000100.000300',
          text: `${SANDBOX_SESSION_IDS.videoRejected} and ${unknown}, again ${SANDBOX_SESSION_IDS.videoRejected}`,
        },
      }),
    );
    const first = (await h.slack.nextResponse(0)).body;
    const second = (await h.slack.nextResponse(1)).body;
    expect(textOf(first)).toContain('Video call · rejected');
    expect(markupOf(second).join('\n')).toContain('CometChat has no call with that session id');
    const ref = referenceOf(second);
    expect(ref).toBeDefined();
    expect(logsWithRef(h, ref ?? '').length).toBeGreaterThan(0);
    // The repeated id is looked up once.
    expect(callRequests(h)).toHaveLength(2);
  });

  it('a message without a session id opens the search form with a uid from it, asking CometChat nothing', async () => {
    for (const [text, uid] of [
      ['customer cometchat-uid-2 says it dropped (ticket T-1234) <!here>', 'cometchat-uid-2'],
      ['lunch at noon? <!here>', undefined],
    ] as const) {
      const before = h.slack.calls.length;
      await h.driver.interaction(
        h.driver.messageShortcut({
          callbackId: 'lookup_call_message',
          message: { ts: '1700000100.000400', text },
        }),
      );
      const opened = await h.slack.nextCall('views.open', before);
      const view = opened.args.view as View;
      expect(view).toMatchObject({ callback_id: 'lookup_call_modal' });
      const json = JSON.stringify(view.blocks);
      if (uid) {
        expect(json).toContain(`"initial_value":"${uid}"`);
        // As CometChat stores uids: in lower case.
        expect(json).toContain('others there: t-1234');
      } else {
        expect(json).not.toContain('initial_value');
      }
      expect(h.messages()).toEqual([]);
    }
    expect(callRequests(h)).toHaveLength(0);
  });

  it('"Look up a call" opens a form and shows the call in the modal', async () => {
    const form = await openLookupForm(h);
    expect(JSON.stringify(form.blocks)).toContain('lookup_session');
    const { answer, sent, before } = await submitLookup(
      h,
      form,
      lookupValues(`  ${SANDBOX_SESSION_IDS.withRecordings} `, 'cometchat-uid-4'),
    );
    // Answered within Slack's 3 seconds with a pending view, filled in once CometChat answers.
    expect(sent.elapsedMs).toBeLessThan(3000);
    expect(answer.response_action).toBe('update');
    expect(textOf(answer.view)).toContain('Looking up');
    const result = await h.slack.nextCall('views.update', before);
    expect(result.args.view_id).toBe(form.id);
    const view = result.args.view as View;
    expect(textOf(view)).toContain('Video call · ended');
    expect(markupOf(view).join('\n')).toContain('looked up as `cometchat-uid-4`');
    expect(markupOf(view).join('\n')).toContain('*Recordings* (2)');
    // A modal has no channel to share into.
    expect(JSON.stringify(view)).not.toContain('share_call');
    expect(callRequests(h).map((r) => r.headers.onbehalfof)).toEqual(['cometchat-uid-4']);
    expectNoInjectedMarkup(view, ['https://recordings-us.cometchat.io/']);
  });

  it('the form takes a session id with spaces and sends it as one encoded segment', async () => {
    const form = await openLookupForm(h);
    const { answer, before } = await submitLookup(
      h,
      form,
      lookupValues(SANDBOX_SESSION_IDS.customId),
    );
    expect(answer.response_action).toBe('update');
    const result = await h.slack.nextCall('views.update', before);
    expect(textOf(result.args.view)).toContain('Audio call · initiated');
    expect(callRequests(h).map((r) => r.path)).toEqual([
      `/v3/calls/${encodeURIComponent(SANDBOX_SESSION_IDS.customId)}`,
    ]);
    expect(callRequests(h)[0]?.headers.onbehalfof).toBeUndefined();
  });

  it('the form refuses unusable input field by field, without asking CometChat', async () => {
    const form = await openLookupForm(h);
    const { answer } = await submitLookup(h, form, lookupValues('v1.us.x\u0000y', 'two words'));
    expect(answer).toEqual({
      response_action: 'errors',
      errors: {
        lookup_session: 'A session id cannot contain control characters.',
        lookup_on_behalf_of: 'A uid cannot contain spaces.',
      },
    });
    const empty = await submitLookup(h, form, lookupValues('   '));
    expect(empty.answer).toEqual({
      response_action: 'errors',
      errors: { lookup_session: 'A session id cannot be empty.' },
    });
    expect(callRequests(h)).toHaveLength(0);
  });

  it('an unknown call is told in the modal, with a reference found in the log', async () => {
    const form = await openLookupForm(h);
    const { before } = await submitLookup(h, form, lookupValues('v1.us.sandbox-app.nope'));
    const result = await h.slack.nextCall('views.update', before);
    const view = result.args.view as View;
    expect(markupOf(view).join('\n')).toContain('CometChat has no call with that session id');
    const ref = referenceOf(view);
    expect(ref).toMatch(/^[0-9a-f]{10}$/);
    // The error handler logs the failure last, and stops there when the modal already shows
    // it: once the line is written, the request is done.
    const refused = await h.slack.waitFor(() =>
      logsWithRef(h, ref ?? '').find((r) => r.message.startsWith('request refused')),
    );
    expect(refused).toMatchObject({
      log: { level: 'info' },
      cometchat_ops: { kind: 'not_found', status: 404 },
    });
    // Told once, in the modal: no message on top of it.
    expect(h.messages()).toHaveLength(0);
  });

  it('"Show all participants" from the modal pushes the participants view', async () => {
    const form = await openLookupForm(h);
    const { before } = await submitLookup(h, form, lookupValues(SANDBOX_SESSION_IDS.groupOngoing));
    await h.slack.nextCall('views.update', before);
    const result = h.slack.views.get(form.id);
    if (!result) throw new Error('the modal is gone');
    expect(textOf(result)).toContain('Show all 12 participants');
    const next = h.slack.calls.length;
    await h.driver.interaction(
      h.driver.blockAction({ actionId: 'call_participants', view: result }),
    );
    const pushed = await h.slack.nextCall('views.push', next);
    expect(pushed.args.trigger_id).toBeDefined();
    const filled = await h.slack.nextCall('views.update', next);
    expect(markupOf(filled.args.view).join('\n')).toContain('Page 1 of 1 · 12 participants');
  });
});
