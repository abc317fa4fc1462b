import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import {
  connectSlackStandIn,
  type RemoteSlackStandIn,
} from '../../../offline/slack-standin/remote.ts';
import { type SlackStandIn, startSlackStandIn } from '../../../offline/slack-standin/server.ts';
import { recordingLogger } from './recording-logger.ts';

// A stand-in seen from another process (`npm run try -- --app`): ids made there are honoured
// only once issued, and what the app sends reaches the records there.

let standIn: SlackStandIn | undefined;
let remote: RemoteSlackStandIn | undefined;
afterEach(async () => {
  remote?.close();
  await standIn?.close();
  remote = undefined;
  standIn = undefined;
});

const modal = {
  type: 'modal' as const,
  callback_id: 'edit_role',
  title: { type: 'plain_text' as const, text: 'Edit role' },
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Loading…' } }],
};

const postReply = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'Roles' }),
  });

describe('connectSlackStandIn', () => {
  it('honours a response_url and a trigger_id made here once they are issued', async () => {
    standIn = await startSlackStandIn({ controlRoutes: true });
    const bot = new WebClient(standIn.botToken, {
      slackApiUrl: standIn.apiUrl,
      retryConfig: { retries: 0 },
      logger: recordingLogger().logger,
    });
    await bot.auth.test();
    remote = await connectSlackStandIn(standIn.url);
    const url = remote.responseUrl();
    const trigger = remote.triggerId();

    expect((await postReply(url)).status).toBe(404);
    await expect(bot.views.open({ trigger_id: trigger, view: modal })).rejects.toThrow(
      'invalid_trigger_id',
    );

    const another = remote.responseUrl();
    const fresh = remote.triggerId();
    await remote.issuePending();
    expect((await postReply(another)).status).toBe(200);
    const opened = await bot.views.open({ trigger_id: fresh, view: modal });

    // Only what happened since the connection: not the auth.test before it.
    const reply = await remote.nextResponse(0);
    expect(reply.body).toEqual({ text: 'Roles' });
    const call = await remote.nextCall('views.open', 0);
    expect(call.answer).toMatchObject({ ok: false, error: 'invalid_trigger_id' });
    // Both calls were answered before this line: a catch-up now has them all.
    await remote.refresh();
    expect(remote.calls.map((c) => c.answer?.ok)).toEqual([false, true]);
    expect(remote.views.get(String(opened.view?.id))).toMatchObject({ callback_id: 'edit_role' });
  });

  it('applies a view_submission’s answer there', async () => {
    standIn = await startSlackStandIn({ controlRoutes: true });
    remote = await connectSlackStandIn(standIn.url);
    const bot = new WebClient(standIn.botToken, {
      slackApiUrl: standIn.apiUrl,
      retryConfig: { retries: 0 },
      logger: recordingLogger().logger,
    });
    const { view } = await bot.views.open({
      trigger_id: standIn.triggerId(),
      view: modal,
    });
    const pushed = await remote.applyViewResponse(String(view?.id), {
      response_action: 'push',
      view: { ...modal, callback_id: 'confirm' },
    });
    expect(pushed).toMatchObject({ callback_id: 'confirm', previous_view_id: view?.id });
    expect(standIn.views.get(String(pushed?.id))).toEqual(pushed);
    expect(remote.views.get(String(pushed?.id))).toEqual(pushed);
  });

  it('says so when the stand-in serves no /standin/ routes', async () => {
    standIn = await startSlackStandIn();
    await expect(connectSlackStandIn(standIn.url)).rejects.toThrow(
      'does not serve /standin/ (start it with npm run standins)',
    );
  });

  it('refuses ids of shapes the stand-in never makes', async () => {
    standIn = await startSlackStandIn({ controlRoutes: true });
    const issue = (body: unknown) =>
      fetch(`${standIn?.url}/standin/issue`, { method: 'POST', body: JSON.stringify(body) });
    expect((await issue({ responseUrlIds: ['a/b'] })).status).toBe(400);
    expect((await issue({ triggerIds: [7] })).status).toBe(400);
    expect((await issue({ responseUrlIds: ['ok-1'], triggerIds: ['1.2.ab'] })).status).toBe(200);
  });
});
