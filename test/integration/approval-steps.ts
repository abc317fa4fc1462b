import { expect } from 'vitest';
import type { SlackDriver } from '../../offline/slack-standin/driver.ts';
import { dmChannelIdFor } from '../../offline/slack-standin/ids.ts';
import { submitView } from '../../offline/stack/editor-steps.ts';
import { actionButtons, type Harness, textOf } from './harness.ts';
import { reviewFlip } from './support.ts';

// An approval request driven as people drive one: the editor asks, another clicks its buttons;
// what the channel and the requester are told. Shared by the approvals' integration tests.

export const CHANNEL = 'C0APPROVE';
export const ENV = { APPROVAL_CHANNEL: CHANNEL, EDITORS: 'U0OPERATOR,U0LEAD,U0LEAD2' };

export interface Posted {
  ts: string;
  blocks: unknown[];
  text: string;
}

/** Reviews a change and asks for its approval: resolves with the request as posted. */
export async function request(h: Harness, reason = 'ticket 42'): Promise<Posted> {
  const { confirmation } = await reviewFlip(h);
  expect(textOf(confirmation)).toContain('Request approval');
  const mark = h.slack.calls.length;
  const answer = await submitView(h, confirmation, {
    approval_reason: { reason: { type: 'plain_text_input', value: reason } },
  });
  expect(answer.response_action).toBe('update');
  const post = await h.slack.nextCall('chat.postMessage', mark);
  expect(post.args.channel).toBe(CHANNEL);
  // The editor says so once the request is stored.
  const done = await h.slack.nextCall('views.update', mark);
  expect(textOf(done.args.view)).toContain('Approval requested');
  // The app updates the message by the ts it stored; a click carries whatever ts Slack has.
  return {
    ts: '1700000000.000300',
    blocks: post.args.blocks as unknown[],
    text: textOf(post.args),
  };
}

/** Clicks a button of the posted request as `driver`'s user; resolves with the ephemeral reply. */
export async function click(h: Harness, driver: SlackDriver, posted: Posted, actionId: string) {
  const button = actionButtons({ blocks: posted.blocks }).find((b) => b.action_id === actionId);
  if (!button?.value) throw new Error(`no ${actionId} button`);
  return driver.interaction(
    driver.blockAction({
      actionId,
      value: button.value,
      responseUrl: h.slack.responseUrl(),
      message: { ts: posted.ts, blocks: posted.blocks },
    }),
  );
}

/** The newest update of the request's message. */
export async function updated(h: Harness, mark: number) {
  const call = await h.slack.nextCall('chat.update', mark);
  return textOf(call.args);
}

/** Waits for a direct message to `user` about their request that says `said`. */
export async function dmTo(h: Harness, user: string, said: string): Promise<string> {
  const dm = dmChannelIdFor(user);
  return h.slack.waitFor(() =>
    h.slack.calls
      .filter((c) => c.method === 'chat.postMessage' && c.args.channel === dm)
      .map((c) => textOf(c.args))
      .find((text) => text.includes('Your request') && text.includes(said)),
  );
}
