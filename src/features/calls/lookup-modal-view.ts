import type { InputBlock, KnownBlock, View } from '@slack/types';
import { MAX_SESSION_ID, MAX_UID } from '../../cometchat/id-rules.ts';
import { context, plain, section } from '../../slack/blocks.ts';
import { ACTIONS, BLOCKS, CALLBACKS } from '../../slack/ids.ts';
import { code } from '../../slack/mrkdwn.ts';
import { MODES, RECEIVER_TYPES, STATUSES, TYPES } from '../call-filters.ts';
import { type PickOrPaste, userSelect } from '../options.ts';

export const SESSION_INPUT = 'session_id';
export const ON_BEHALF_INPUT = 'on_behalf_of';
export const APP_INPUT = 'app';
export const USER_INPUT = 'user_id';
export const FILTERS_INPUT = 'filters';
/** The action id of each search control of the form (one per block). */
export const SEARCH_INPUT = 'value';
/** The user select beside the user id's text field, which still takes one typed or pasted. */
export const USER_FIELDS: PickOrPaste = {
  pick: { block: BLOCKS.lookupUserPick, action: ACTIONS.callUserSearch },
  paste: { block: BLOCKS.lookupUser, action: USER_INPUT },
};
/** The same pair for the uid to act for. */
export const ON_BEHALF_FIELDS: PickOrPaste = {
  pick: { block: BLOCKS.lookupOnBehalfOfPick, action: ACTIONS.callUserSearch },
  paste: { block: BLOCKS.lookupOnBehalfOf, action: ON_BEHALF_INPUT },
};

/** What the form starts with: a user id found in a message, and the other candidates. */
export interface LookupPrefill {
  uid: string;
  others: readonly string[];
}

/**
 * The lookup form: a session id, or a user id (with optional search filters) for that user's
 * recent calls; optionally the uid to act for; with several apps, which one (the first chosen
 * to begin with). Pure.
 */
export function lookupFormView(
  appNames: readonly string[] = [],
  prefill?: LookupPrefill | undefined,
  /** The app chosen to begin with (a channel's default); the first when not given. */
  initialApp?: string | undefined,
): View {
  return {
    type: 'modal',
    callback_id: CALLBACKS.lookupCallModal,
    title: plain('Look up a call', 24),
    submit: plain('Look up', 24),
    close: plain('Cancel', 24),
    blocks: [
      ...appBlocks(appNames, initialApp),
      sessionBlock(),
      pickBlock(BLOCKS.lookupUserPick, 'Or a user: their recent calls'),
      userBlock(prefill),
      ...searchBlocks(),
      filtersBlock(),
      pickBlock(BLOCKS.lookupOnBehalfOfPick, 'On behalf of'),
      onBehalfOfBlock(),
    ],
  };
}

/** The app selector, only when there is a choice to make. */
function appBlocks(appNames: readonly string[], initialApp: string | undefined): InputBlock[] {
  const options = appNames.map((name) => ({ text: plain(name), value: name }));
  const first = options.find((o) => o.value === initialApp) ?? options[0];
  if (options.length <= 1 || !first) return [];
  return [
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
  ];
}

function sessionBlock(): InputBlock {
  return {
    type: 'input',
    block_id: BLOCKS.lookupSession,
    optional: true,
    label: plain('Session id'),
    element: {
      type: 'plain_text_input',
      action_id: SESSION_INPUT,
      max_length: MAX_SESSION_ID,
      placeholder: plain('v1.us.12345abcd.1700000000abcdef'),
    },
  };
}

/** A user select (type-ahead); the text field after it takes a uid pasted instead. */
function pickBlock(blockId: string, label: string): InputBlock {
  return {
    type: 'input',
    block_id: blockId,
    optional: true,
    label: plain(label),
    element: userSelect(ACTIONS.callUserSearch),
  };
}

/** The user id, filled in with one found in a message, the hint naming the other candidates. */
function userBlock(prefill: LookupPrefill | undefined): InputBlock {
  return {
    type: 'input',
    block_id: BLOCKS.lookupUser,
    optional: true,
    label: plain('Or paste a user id'),
    hint: plain(
      prefill && prefill.others.length > 0
        ? `Found in the message; others there: ${prefill.others.slice(0, 5).join(', ')}`
        : 'Give a session id or a user id, not both.',
      150,
    ),
    element: {
      type: 'plain_text_input',
      action_id: USER_INPUT,
      max_length: MAX_UID,
      placeholder: plain('cometchat-uid-2'),
      ...(prefill ? { initial_value: prefill.uid } : {}),
    },
  };
}

/** A select of `values`, for the user id's search; none chosen means any. */
function selectBlock(blockId: string, label: string, values: readonly string[]): InputBlock {
  return {
    type: 'input',
    block_id: blockId,
    optional: true,
    label: plain(label),
    element: {
      type: 'static_select',
      action_id: SEARCH_INPUT,
      placeholder: plain('Any'),
      options: values.map((value) => ({ text: plain(value), value })),
    },
  };
}

/** A date and time for the search's bounds, in the person's own time zone (Slack's picker). */
function whenBlock(blockId: string, label: string): InputBlock {
  return {
    type: 'input',
    block_id: blockId,
    optional: true,
    label: plain(label),
    element: { type: 'datetimepicker', action_id: SEARCH_INPUT },
  };
}

/** The search's filters as controls: the same ones `/cometchat calls` takes as words. */
function searchBlocks(): InputBlock[] {
  return [
    selectBlock(BLOCKS.lookupStatus, 'Status', STATUSES),
    selectBlock(BLOCKS.lookupType, 'Type', TYPES),
    selectBlock(BLOCKS.lookupMode, 'Mode', MODES),
    selectBlock(BLOCKS.lookupTo, 'Called', RECEIVER_TYPES),
    {
      type: 'input',
      block_id: BLOCKS.lookupFlags,
      optional: true,
      label: plain('Only calls'),
      element: {
        type: 'checkboxes',
        action_id: SEARCH_INPUT,
        options: [
          { text: plain('recorded'), value: 'recorded' },
          { text: plain('transcribed'), value: 'transcribed' },
        ],
      },
    },
    whenBlock(BLOCKS.lookupSince, 'Since'),
    whenBlock(BLOCKS.lookupUntil, 'Until'),
  ];
}

function filtersBlock(): InputBlock {
  return {
    type: 'input',
    block_id: BLOCKS.lookupFilters,
    optional: true,
    label: plain('More filters, as words'),
    hint: plain(
      'Like /cometchat calls: status:ended type:video mode:meet to:group recorded since:2h until:2026-11-20',
      150,
    ),
    element: { type: 'plain_text_input', action_id: FILTERS_INPUT, max_length: 500 },
  };
}

function onBehalfOfBlock(): InputBlock {
  return {
    type: 'input',
    block_id: BLOCKS.lookupOnBehalfOf,
    optional: true,
    label: plain('Or paste the uid to act for'),
    hint: plain('Sent as onBehalfOf; leave both empty to use the API key alone.', 150),
    element: { type: 'plain_text_input', action_id: ON_BEHALF_INPUT, max_length: MAX_UID },
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
