import { describe, expect, it } from 'vitest';
import { SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import { type Block, expectNoInjectedMarkup, markupOf, referenceOf, textOf } from './harness.ts';
import { useHarness, withoutHolderCounts } from './support.ts';

describe('Socket Mode through the real app', () => {
  // No signing secret: Socket Mode does not need one, and the config must not ask for it.
  const h = useHarness({ mode: 'socket', env: { SLACK_SIGNING_SECRET: undefined } });

  it('connects through SLACK_API_URL with the app token, without a signing secret', () => {
    expect(h.config.slack.socketMode).toBe(true);
    expect(h.config.slack.signingSecret).toBeUndefined();
    const open = h.slack.calls.filter((c) => c.method === 'apps.connections.open');
    expect(open.length).toBeGreaterThanOrEqual(1);
    expect(open.every((c) => c.token === h.slack.appToken)).toBe(true);
    expect(h.slack.socketConnectionCount()).toBe(1);
  });

  it('a slash command envelope is acknowledged, then answered on its response_url', async () => {
    const fields = h.driver.commandFields('roles');
    const ack = await h.slack.sendEnvelope('slash_commands', fields);
    expect(ack.envelope_id).toMatch(/.+/);
    const reply = await h.slack.nextResponse(0);
    expect(reply.id).toBe(fields.response_url.split('/').at(-1));
    expect(textOf(reply.body)).toContain('CometChat roles');
    expect(reply.body.response_type).toBe('ephemeral');
    // Acknowledged before the work: the ack is not held up by CometChat.
    const recorded = h.slack.acks.find((a) => a.envelope_id === ack.envelope_id);
    expect(recorded?.at ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(reply.at);
    expect(withoutHolderCounts(h)).toHaveLength(1);
  });

  it('page buttons come as interactive envelopes and replace the message in place', async () => {
    h.sandbox.state.roles.push(
      ...Array.from({ length: 5 }, (_, i) => ({
        role: `socket-${i}`,
        name: `Socket ${i}`,
        description: '',
        createdAt: 1_690_000_000,
      })),
    );
    await h.slack.sendEnvelope('slash_commands', h.driver.commandFields('roles'));
    const first = (await h.slack.nextResponse(0)).body;
    await h.slack.sendEnvelope(
      'interactive',
      h.driver.blockAction({
        actionId: 'roles_page_next',
        message: { ts: '1700000000.000100', blocks: first.blocks as Block[] },
      }),
    );
    const second = (await h.slack.nextResponse(1)).body;
    expect(second.replace_original).toBe(true);
    expect(markupOf(second).join('\n')).toContain('Page 2 of 2 · 15 roles');
  });

  it('the global shortcut and its form work over the socket', async () => {
    await h.slack.sendEnvelope(
      'interactive',
      h.driver.globalShortcut({ callbackId: 'lookup_call_global' }),
    );
    await h.slack.nextCall('views.open');
    const form = [...h.slack.views.values()].at(-1);
    if (!form) throw new Error('no modal was opened');
    const before = h.slack.calls.length;
    const ack = await h.slack.sendEnvelope(
      'interactive',
      h.driver.viewSubmission({
        view: form,
        values: {
          lookup_session: {
            session_id: { type: 'plain_text_input', value: SANDBOX_SESSION_IDS.noEntities },
          },
          lookup_on_behalf_of: { on_behalf_of: { type: 'plain_text_input', value: null } },
        },
      }),
    );
    // The answer to a view_submission travels in the acknowledgement's payload.
    expect(ack.payload).toMatchObject({ response_action: 'update' });
    const result = await h.slack.nextCall('views.update', before);
    expect(textOf(result.args.view)).toContain('Audio call · ended');
    expectNoInjectedMarkup(result.args.view);
  });

  it('failures are told with a reference, as over HTTP', async () => {
    h.sandbox.inject({ kind: 'status', status: 401, times: Infinity });
    await h.slack.sendEnvelope(
      'slash_commands',
      h.driver.commandFields(`call ${SANDBOX_SESSION_IDS.audioEnded}`),
    );
    const reply = (await h.slack.nextResponse(0)).body;
    expect(markupOf(reply).join('\n')).toContain("CometChat refused the app's API key");
    expect(referenceOf(reply)).toMatch(/^[0-9a-f]{10}$/);
  });

  it('acknowledges, once, an action no listener takes and a submission whose listener failed first', async () => {
    const action = await h.slack.sendEnvelope(
      'interactive',
      h.driver.blockAction({ actionId: 'no_such_action', value: 'x' }),
    );
    // Metadata no version of the app wrote: the listener throws before it acknowledges.
    const view = {
      id: 'V0SOCKET',
      type: 'modal',
      callback_id: 'reject_reason',
      private_metadata: 'not signed',
      state: { values: {} },
    };
    const submission = await h.slack.sendEnvelope(
      'interactive',
      h.driver.viewSubmission({ view, values: {} }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const { envelope_id } of [action, submission]) {
      expect(h.slack.acks.filter((a) => a.envelope_id === envelope_id)).toHaveLength(1);
    }
    expect(h.logs.text()).not.toContain('ack() has already been called');
    expect(h.logs.errors()).toEqual([]);
  });

  it('GET /healthz answers 200; there is no HTTP endpoint for Slack requests', async () => {
    const base = `http://127.0.0.1:${h.app.port}`;
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    expect((await fetch(`${base}/healthz?probe=1`)).status).toBe(200);
    const events = await fetch(`${base}/slack/events`, { method: 'POST', body: 'payload={}' });
    await events.body?.cancel();
    expect(events.status).toBe(404);
  });
});
