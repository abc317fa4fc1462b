import { describe, expect, it } from 'vitest';
import { createSlackDriver, signSlackRequest } from '../../offline/slack-standin/driver.ts';
import { confirm } from '../../offline/stack/editor-steps.ts';
import { signedTestValue } from './harness.ts';
import { expectHealthy, puts, reviewFlip, useSharedHarness, watchRejections } from './support.ts';

// Requests signed with the app's secret that still must not be served: from a workspace the
// app is not installed in, or carrying junk where Slack always sends a shape.

const OTHER_TEAM = 'T0ELSEWHERE';

describe('a request from another workspace', () => {
  const h = useSharedHarness({}, { resetAfterEach: true });
  const elsewhere = () =>
    createSlackDriver({
      appUrl: h.appUrl,
      signingSecret: h.config.slack.signingSecret ?? '',
      standIn: h.slack,
      teamId: OTHER_TEAM,
    });

  it('is acknowledged and dropped: no CometChat call, no reply', async () => {
    const sent = await elsewhere().command('roles');
    expect(sent.status).toBe(200);
    expect(sent.body).toContain('This app serves another workspace; nothing was done.');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.sandbox.requests).toEqual([]);
    expect(h.slack.responses).toEqual([]);
    expect(h.logs.text()).toContain('request refused: from another workspace');
  });

  it('cannot apply a change, even with a confirmation this workspace was shown', async () => {
    const { confirmation } = await reviewFlip(h);
    const stranger = elsewhere();
    const answer = await stranger.interaction(
      stranger.viewSubmission({ view: confirmation, values: {} }),
    );
    expect(answer.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(puts(h)).toEqual([]);
    // The workspace's own editor still can.
    await confirm(h, confirmation);
    expect(puts(h)).toHaveLength(1);
  });
});

describe('a member of the workspace whose home workspace is another (Enterprise Grid)', () => {
  const h = useSharedHarness({}, { resetAfterEach: true });

  it("is served: only the team the request is for counts, not the user's own", async () => {
    const action = h.driver.blockAction({
      actionId: 'roles_page_next',
      value: signedTestValue(h, { page: 2 }),
    });
    const user = action.user as Record<string, unknown>;
    const answer = await h.driver.interaction({
      ...action,
      user: { ...user, team_id: OTHER_TEAM },
    });
    expect(answer.status).toBe(200);
    await h.slack.nextResponse(0);
    expect(h.sandbox.requests.length).toBeGreaterThan(0);
  });
});

describe('signed junk', () => {
  const h = useSharedHarness({}, { resetAfterEach: true });
  const rejections = watchRejections();

  const post = (fields: Record<string, string>) =>
    h.driver.signedPost(new URLSearchParams(fields).toString());

  it('gets an answer and leaves nothing unhandled, whatever the shape', async () => {
    rejections.start();
    try {
      const command = h.driver.commandFields('roles');
      const action = h.driver.blockAction({ actionId: 'roles_page_next', value: '{"page":2}' });
      const submission = h.driver.viewSubmission({
        view: {
          id: 'V1',
          callback_id: 'perms_editor',
          private_metadata: '',
          state: { values: {} },
        },
        values: {},
      });
      const { user: _user, ...withoutUser } = submission;
      const cases: Record<string, string>[] = [
        { payload: 'null' },
        { payload: '42' },
        { payload: '"text"' },
        { payload: '{not json' },
        { payload: JSON.stringify({ ...action, actions: [{ action_id: 7 }] }) },
        { payload: JSON.stringify({ ...action, actions: 'none' }) },
        { payload: JSON.stringify(withoutUser) },
        { payload: JSON.stringify({ type: 'shortcut' }) },
      ];
      const answers: number[] = [];
      for (const fields of cases) answers.push((await post(fields)).status);
      // A command whose text is not a string: form fields are strings, so a JSON body.
      const json = JSON.stringify({ ...command, text: { nested: true } });
      answers.push((await h.driver.raw(json, jsonSigned(h, json))).status);
      for (const status of answers) expect([200, 400, 401]).toContain(status);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(rejections.seen).toEqual([]);
      expect(h.sandbox.requests).toEqual([]);
      await expectHealthy(h);
      expect(h.logs.errors()).toEqual([]);
    } finally {
      rejections.stop();
    }
  });
});

/** The signature headers for a JSON body, with its content type. */
function jsonSigned(
  h: { config: { slack: { signingSecret?: string | undefined } } },
  body: string,
) {
  return {
    ...signSlackRequest(h.config.slack.signingSecret ?? '', body),
    'content-type': 'application/json',
  };
}
