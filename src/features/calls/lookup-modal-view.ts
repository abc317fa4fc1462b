import type { KnownBlock, View } from '@slack/types';
import { context, plain, section } from '../../slack/blocks.ts';
import { MAX_SESSION_ID, MAX_UID } from '../../slack/command.ts';
import { BLOCKS, CALLBACKS } from '../../slack/ids.ts';
import { code } from '../../slack/mrkdwn.ts';

export const SESSION_INPUT = 'session_id';
export const ON_BEHALF_INPUT = 'on_behalf_of';
export const APP_INPUT = 'app';

/**
 * The global shortcut's form: a session id, and optionally the uid to act for; with several
 * apps, which one (the first chosen to begin with). Pure.
 */
export function lookupFormView(appNames: readonly string[] = []): View {
  const options = appNames.map((name) => ({ text: plain(name), value: name }));
  const [first] = options;
  const appBlock: KnownBlock[] =
    options.length > 1 && first
      ? [
          {
            type: 'input',
            block_id: BLOCKS.lookupApp,
            label: plain('CometChat app'),
            element: {
              type: 'static_select',
              action_id: APP_INPUT,
              options: options.slice(0, 100),
              initial_option: first,
            },
          },
        ]
      : [];
  return {
    type: 'modal',
    callback_id: CALLBACKS.lookupCallModal,
    title: plain('Look up a call', 24),
    submit: plain('Look up', 24),
    close: plain('Cancel', 24),
    blocks: [
      ...appBlock,
      {
        type: 'input',
        block_id: BLOCKS.lookupSession,
        label: plain('Session id'),
        element: {
          type: 'plain_text_input',
          action_id: SESSION_INPUT,
          max_length: MAX_SESSION_ID,
          placeholder: plain('v1.us.12345abcd.1700000000abcdef'),
        },
      },
      {
        type: 'input',
        block_id: BLOCKS.lookupOnBehalfOf,
        optional: true,
        label: plain('On behalf of (uid)'),
        hint: plain('Sent as onBehalfOf; leave empty to use the API key alone.', 150),
        element: { type: 'plain_text_input', action_id: ON_BEHALF_INPUT, max_length: MAX_UID },
      },
    ],
  };
}

/** Shown at once after submit, while CometChat is asked (it may take a few seconds). */
export function lookupPendingView(sessionId: string): View {
  return resultView([section(`:hourglass_flowing_sand: Looking up ${code(sessionId)}…`)]);
}

/** A modal holding the call (or a failure): the message blocks without message-only buttons. */
export function resultView(blocks: KnownBlock[]): View {
  return {
    type: 'modal',
    callback_id: CALLBACKS.lookupCallModal,
    title: plain('Call lookup', 24),
    close: plain('Close', 24),
    blocks: blocks.length > 0 ? blocks : [context(['Nothing to show.'])],
  };
}
