import {
  BLOCK_KIT_LIMITS,
  blockKitProblems,
  homeViewProblems,
  viewProblems,
} from './block-kit-limits.ts';
import { completeUpload, getUploadUrl, type StandInFile } from './file-uploads.ts';
import { completeError, completeSuccess, type FunctionExecutions } from './functions.ts';
import { dmChannelIdFor, type IdSource } from './ids.ts';
import { isRecord } from './is-record.ts';
import { STAND_IN_WORKSPACE } from './workspace.ts';

/** A user `users.info` knows; fields are Slack's own, the rest is filled with plain defaults. */
export interface StandInUser {
  id: string;
  name?: string;
  real_name?: string;
  is_admin?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
  is_restricted?: boolean;
  is_bot?: boolean;
  deleted?: boolean;
  tz?: string;
  [field: string]: unknown;
}

/** A view as Slack returns it from `views.open` / `views.update` / `views.push`. */
export type StoredView = Record<string, unknown> & { id: string; hash: string };

/** What the Web API remembers between calls. */
export interface WebApiState {
  users: Map<string, StandInUser>;
  /** usergroup id -> ids of its members */
  userGroups: Map<string, readonly string[]>;
  /** channel id -> ids of its members (`users.conversations`); an id starting with G is private */
  channelMembers: Map<string, readonly string[]>;
  views: Map<string, StoredView>;
  /** Each user's Home tab, as last published (`views.publish`). */
  homes: Map<string, StoredView>;
  /** messages the bot posted, by `${channel}/${ts}`, so `chat.update` can find them */
  messages: Map<string, Record<string, unknown>>;
  triggers: Map<string, { issuedAt: number; used: boolean }>;
  /** Link cards (`chat.unfurl`), by `${channel}/${ts}` or the composer's unfurl id, then url. */
  unfurls: Map<string, Record<string, unknown>>;
  /** Runs of the app's workflow steps, by execution id (functions.ts). */
  executions: FunctionExecutions;
  /** Files uploaded (file-uploads.ts), by file id. */
  files: Map<string, StandInFile>;
}

export function createWebApiState(): WebApiState {
  return {
    users: new Map(),
    userGroups: new Map(),
    channelMembers: new Map(),
    views: new Map(),
    homes: new Map(),
    messages: new Map(),
    triggers: new Map(),
    unfurls: new Map(),
    executions: new Map(),
    files: new Map(),
  };
}

export interface WebApiContext {
  state: WebApiState;
  ids: IdSource;
  now: () => number;
  /** A fresh Socket Mode address with a single-use ticket. */
  socketModeUrl: () => string;
  /** The address a file's bytes are POSTed to (`files.getUploadURLExternal`). */
  uploadUrl: (fileId: string) => string;
}

export type ApiAnswer = Record<string, unknown> & { ok: boolean };
type Handler = (args: Record<string, unknown>, context: WebApiContext) => ApiAnswer;

/** Which kind of token a method wants: Slack refuses the other kind with `not_allowed_token_type`. */
export type TokenKind = 'bot' | 'app';

/** A trigger_id works once, for 3 seconds (platform-limits.md, "Time"). */
export const TRIGGER_LIFETIME_MS = 3000;

function failure(error: string, messages?: readonly string[]): ApiAnswer {
  return messages && messages.length > 0
    ? { ok: false, error, response_metadata: { messages } }
    : { ok: false, error };
}

function text(args: Record<string, unknown>, key: string): string | undefined {
  const value = args[key];
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** Issues a trigger_id the way an interaction would; `views.open` and `views.push` use it up. */
export function issueTrigger(state: WebApiState, ids: IdSource, now: number): string {
  const id = ids.triggerId();
  state.triggers.set(id, { issuedAt: now, used: false });
  return id;
}

function spendTrigger(state: WebApiState, triggerId: string | undefined, now: number) {
  if (triggerId === undefined) return failure('invalid_trigger_id');
  const trigger = state.triggers.get(triggerId);
  if (trigger === undefined) return failure('invalid_trigger_id');
  if (trigger.used) return failure('exchanged_trigger_id');
  if (now - trigger.issuedAt > TRIGGER_LIFETIME_MS) return failure('expired_trigger_id');
  trigger.used = true;
  return undefined;
}

function buildView(
  view: Record<string, unknown>,
  id: string,
  hash: string,
  previous: StoredView | undefined,
): StoredView {
  return {
    type: 'modal',
    blocks: [],
    private_metadata: '',
    callback_id: '',
    external_id: '',
    close: null,
    submit: null,
    clear_on_close: false,
    notify_on_close: false,
    ...view,
    id,
    hash,
    team_id: STAND_IN_WORKSPACE.teamId,
    app_id: STAND_IN_WORKSPACE.appId,
    app_installed_team_id: STAND_IN_WORKSPACE.teamId,
    bot_id: STAND_IN_WORKSPACE.botId,
    // The user has typed nothing into a view the app has just sent.
    state: { values: {} },
    previous_view_id: previous?.previous_view_id ?? null,
    root_view_id: previous?.root_view_id ?? id,
  };
}

/** `views.open` and `views.push`: both spend a trigger_id and create a view. */
const openView: Handler = (args, { state, ids, now }) => {
  const problems = viewProblems(args.view);
  if (problems.length > 0 || !isRecord(args.view)) return failure('invalid_arguments', problems);
  const spent = spendTrigger(state, text(args, 'trigger_id'), now());
  if (spent) return spent;
  const view = buildView(args.view, ids.viewId(), ids.viewHash(), undefined);
  state.views.set(view.id, view);
  return { ok: true, view };
};

/** `views.publish`: a user's Home tab, replaced whole each time (no trigger needed). */
const publishView: Handler = (args, { state, ids }) => {
  const userId = text(args, 'user_id');
  if (userId === undefined) {
    return failure('invalid_arguments', ['[ERROR] missing required field: user_id']);
  }
  if (!state.users.has(userId) && state.users.size > 0) return failure('user_not_found');
  const problems = homeViewProblems(args.view);
  if (problems.length > 0 || !isRecord(args.view)) return failure('invalid_arguments', problems);
  const current = state.homes.get(userId);
  const hash = text(args, 'hash');
  if (hash !== undefined && current !== undefined && hash !== current.hash) {
    return failure('hash_conflict');
  }
  const view = buildView(args.view, current?.id ?? ids.viewId(), ids.viewHash(), current);
  state.homes.set(userId, view);
  state.views.set(view.id, view);
  return { ok: true, view };
};

const updateView: Handler = (args, { state, ids }) => {
  const viewId = text(args, 'view_id');
  const externalId = text(args, 'external_id');
  if (viewId === undefined && externalId === undefined) {
    return failure('invalid_arguments', ['[ERROR] either view_id or external_id is required']);
  }
  const current =
    viewId !== undefined
      ? state.views.get(viewId)
      : [...state.views.values()].find((v) => v.external_id === externalId);
  if (current === undefined) return failure('not_found');
  const hash = text(args, 'hash');
  // `hash` is how an app learns that the user (or another update) changed the view meanwhile.
  if (hash !== undefined && hash !== current.hash) return failure('hash_conflict');
  const problems = viewProblems(args.view);
  if (problems.length > 0 || !isRecord(args.view)) return failure('invalid_arguments', problems);
  const view = buildView(args.view, current.id, ids.viewHash(), current);
  state.views.set(view.id, view);
  return { ok: true, view };
};

function messageBlocksProblem(args: Record<string, unknown>): ApiAnswer | undefined {
  const problems = blockKitProblems(args.blocks, '/blocks', BLOCK_KIT_LIMITS.messageBlocks);
  return problems.length > 0 ? failure('invalid_blocks', problems) : undefined;
}

const postMessage: Handler = (args, { state, ids }) => {
  const target = text(args, 'channel');
  if (target === undefined) return failure('channel_not_found');
  if (args.text === undefined && args.blocks === undefined && args.attachments === undefined) {
    return failure('no_text');
  }
  const blocksProblem = messageBlocksProblem(args);
  if (blocksProblem) return blocksProblem;
  // Posting to a user id lands in the bot's DM with that user.
  const channel = /^[UW]/.test(target) ? dmChannelIdFor(target) : target;
  const ts = ids.messageTs();
  const message: Record<string, unknown> = {
    type: 'message',
    user: STAND_IN_WORKSPACE.botUserId,
    bot_id: STAND_IN_WORKSPACE.botId,
    app_id: STAND_IN_WORKSPACE.appId,
    team: STAND_IN_WORKSPACE.teamId,
    text: typeof args.text === 'string' ? args.text : '',
    ts,
    ...(args.blocks !== undefined ? { blocks: args.blocks } : {}),
    ...(args.attachments !== undefined ? { attachments: args.attachments } : {}),
    ...(args.thread_ts !== undefined ? { thread_ts: args.thread_ts } : {}),
    ...(args.metadata !== undefined ? { metadata: args.metadata } : {}),
  };
  state.messages.set(`${channel}/${ts}`, message);
  return { ok: true, channel, ts, message };
};

const postEphemeral: Handler = (args, { ids }) => {
  if (text(args, 'channel') === undefined) return failure('channel_not_found');
  if (text(args, 'user') === undefined) return failure('user_not_in_channel');
  if (args.text === undefined && args.blocks === undefined && args.attachments === undefined) {
    return failure('no_text');
  }
  return messageBlocksProblem(args) ?? { ok: true, message_ts: ids.messageTs() };
};

const updateMessage: Handler = (args, { state }) => {
  const channel = text(args, 'channel');
  const ts = text(args, 'ts');
  if (channel === undefined) return failure('channel_not_found');
  const key = `${channel}/${ts}`;
  const current = state.messages.get(key);
  // Only messages the bot posted can be updated; the stand-in knows exactly those.
  if (ts === undefined || current === undefined) return failure('message_not_found');
  const blocksProblem = messageBlocksProblem(args);
  if (blocksProblem) return blocksProblem;
  const message = {
    ...current,
    ...(args.text !== undefined ? { text: args.text } : {}),
    ...(args.blocks !== undefined ? { blocks: args.blocks } : {}),
    ...(args.attachments !== undefined ? { attachments: args.attachments } : {}),
    edited: { user: STAND_IN_WORKSPACE.botUserId, ts },
  };
  state.messages.set(key, message);
  return { ok: true, channel, ts, text: message.text, message };
};

/** Where `chat.unfurl` puts its cards: a posted message, or a message still in the composer. */
function unfurlKey(args: Record<string, unknown>): string | ApiAnswer {
  const unfurlId = text(args, 'unfurl_id');
  const source = text(args, 'source');
  if (unfurlId !== undefined || source !== undefined) {
    if (unfurlId === undefined || (source !== 'composer' && source !== 'conversations_history'))
      return failure('invalid_arguments', [
        '[ERROR] unfurl_id goes with source composer|conversations_history',
      ]);
    return unfurlId;
  }
  const channel = text(args, 'channel');
  const ts = text(args, 'ts');
  if (channel === undefined || ts === undefined)
    return failure('invalid_arguments', [
      '[ERROR] channel and ts, or unfurl_id and source, are required',
    ]);
  return `${channel}/${ts}`;
}

/**
 * `chat.unfurl`: each url's card is an attachment whose `blocks` follow the message rules. The
 * stand-in cannot see the message a person posted, so it takes any channel and ts.
 */
const unfurl: Handler = (args, { state }) => {
  const key = unfurlKey(args);
  if (typeof key !== 'string') return key;
  const unfurls = args.unfurls;
  if (!isRecord(unfurls)) return failure('invalid_unfurls_format');
  if (Object.keys(unfurls).length === 0) return failure('missing_unfurls');
  for (const [url, card] of Object.entries(unfurls)) {
    if (!isRecord(card)) return failure('invalid_unfurls_format');
    const problems = blockKitProblems(
      card.blocks,
      `/unfurls/${url}/blocks`,
      BLOCK_KIT_LIMITS.messageBlocks,
    );
    if (problems.length > 0) return failure('invalid_blocks', problems);
  }
  state.unfurls.set(key, { ...state.unfurls.get(key), ...unfurls });
  return { ok: true };
};

export function fullUser(user: StandInUser): Record<string, unknown> {
  const name = user.name ?? user.id.toLowerCase();
  const realName = user.real_name ?? name;
  return {
    team_id: STAND_IN_WORKSPACE.teamId,
    deleted: false,
    color: '9f69e7',
    tz: 'Europe/Berlin',
    tz_label: 'Central European Time',
    tz_offset: 3600,
    is_admin: false,
    is_owner: false,
    is_primary_owner: false,
    is_restricted: false,
    is_ultra_restricted: false,
    is_bot: false,
    is_app_user: false,
    updated: 1_700_000_000,
    ...user,
    name,
    real_name: realName,
    profile: { real_name: realName, display_name: name, team: STAND_IN_WORKSPACE.teamId },
  };
}

const userInfo: Handler = (args, { state }) => {
  const user = state.users.get(text(args, 'user') ?? '');
  return user === undefined ? failure('user_not_found') : { ok: true, user: fullUser(user) };
};

const userGroupMembers: Handler = (args, { state }) => {
  const users = state.userGroups.get(text(args, 'usergroup') ?? '');
  return users === undefined ? failure('no_such_subteam') : { ok: true, users: [...users] };
};

/** Slack's cursors are opaque base64; the stand-in's hold where the next page starts. */
const cursorAt = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64');
/** Where a cursor's page starts (0 without one), or NaN for a cursor the stand-in never gave. */
function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const offset = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString())?.[1];
  return offset === undefined ? Number.NaN : Number(offset);
}
const CONVERSATION_TYPES = ['public_channel', 'private_channel', 'mpim', 'im'];

/**
 * `users.conversations`: the channels a user (the bot when none is named) is a member of, of the
 * types asked (public ones by default), a page of `limit` (100 by default, 1000 at most) at a
 * time. Only channels are known: `im` and `mpim` list nothing.
 */
const userConversations: Handler = (args, { state }) => {
  const user = text(args, 'user') ?? STAND_IN_WORKSPACE.botUserId;
  if (!state.users.has(user) && state.users.size > 0) return failure('user_not_found');
  const types = (text(args, 'types') ?? 'public_channel').split(',').map((t) => t.trim());
  if (types.some((t) => !CONVERSATION_TYPES.includes(t))) return failure('invalid_types');
  const start = offsetOf(text(args, 'cursor'));
  if (!Number.isInteger(start)) return failure('invalid_cursor');
  const limit = Math.min(Number(text(args, 'limit') ?? 100) || 100, 1000);
  const member = [...state.channelMembers]
    .filter(
      ([id, members]) =>
        members.includes(user) &&
        types.includes(id.startsWith('G') ? 'private_channel' : 'public_channel'),
    )
    .map(([id]) => id);
  const channels = member.slice(start, start + limit).map((id) => ({
    id,
    name: id.toLowerCase(),
    is_channel: true,
    is_group: false,
    is_im: false,
    is_mpim: false,
    is_private: id.startsWith('G'),
    is_archived: false,
    context_team_id: STAND_IN_WORKSPACE.teamId,
  }));
  const next = start + limit < member.length ? cursorAt(start + limit) : '';
  return { ok: true, channels, response_metadata: { next_cursor: next } };
};

const openConversation: Handler = (args) => {
  const channel = text(args, 'channel');
  if (channel !== undefined) return { ok: true, channel: { id: channel } };
  const users = (text(args, 'users') ?? '').split(',').filter((u) => u !== '');
  const [only] = users;
  if (only === undefined) return failure('users_list_not_supplied');
  const id = users.length === 1 ? dmChannelIdFor(only) : `G${users.join('').replace(/\W/g, '')}`;
  return { ok: true, no_op: true, already_open: true, channel: { id } };
};

const authTest: Handler = () => ({
  ok: true,
  url: `https://${STAND_IN_WORKSPACE.teamDomain}.slack.com/`,
  team: STAND_IN_WORKSPACE.teamName,
  user: STAND_IN_WORKSPACE.botName,
  team_id: STAND_IN_WORKSPACE.teamId,
  user_id: STAND_IN_WORKSPACE.botUserId,
  bot_id: STAND_IN_WORKSPACE.botId,
  is_enterprise_install: false,
});

const openConnection: Handler = (_args, { socketModeUrl }) => ({ ok: true, url: socketModeUrl() });

/** The Web API methods the stand-in answers, with the token each one wants. */
export const WEB_API_METHODS: ReadonlyMap<string, { token: TokenKind; handle: Handler }> = new Map(
  Object.entries({
    'auth.test': { token: 'bot', handle: authTest },
    'chat.postMessage': { token: 'bot', handle: postMessage },
    'chat.postEphemeral': { token: 'bot', handle: postEphemeral },
    'chat.update': { token: 'bot', handle: updateMessage },
    'chat.unfurl': { token: 'bot', handle: unfurl },
    'views.open': { token: 'bot', handle: openView },
    'views.push': { token: 'bot', handle: openView },
    'views.update': { token: 'bot', handle: updateView },
    'views.publish': { token: 'bot', handle: publishView },
    'users.info': { token: 'bot', handle: userInfo },
    'usergroups.users.list': { token: 'bot', handle: userGroupMembers },
    'users.conversations': { token: 'bot', handle: userConversations },
    'conversations.open': { token: 'bot', handle: openConversation },
    'apps.connections.open': { token: 'app', handle: openConnection },
    // No scope needed: the bot token or the execution's own workflow token may complete it.
    'functions.completeSuccess': {
      token: 'bot',
      handle: (args, { state, now }) => completeSuccess(state.executions, args, now()),
    },
    'functions.completeError': {
      token: 'bot',
      handle: (args, { state, now }) => completeError(state.executions, args, now()),
    },
    'files.getUploadURLExternal': {
      token: 'bot',
      handle: (args, { state, uploadUrl }) => getUploadUrl(args, state.files, uploadUrl),
    },
    'files.completeUploadExternal': {
      token: 'bot',
      handle: (args, { state }) => completeUpload(args, state.files),
    },
  } satisfies Record<string, { token: TokenKind; handle: Handler }>),
);

/**
 * What Slack does with a view_submission's `response_action`: `update` replaces the submitted
 * view (same id, new hash), `push` stacks a new view on it, `clear` closes the stack. The app's
 * later `views.update` calls then find these views, as they would in Slack.
 */
export function applyViewResponse(
  state: WebApiState,
  ids: IdSource,
  submittedViewId: string,
  response: unknown,
): StoredView | undefined {
  if (!isRecord(response) || !isRecord(response.view)) {
    if (isRecord(response) && response.response_action === 'clear')
      state.views.delete(submittedViewId);
    return undefined;
  }
  const current = state.views.get(submittedViewId);
  if (response.response_action === 'update' && current) {
    const view = buildView(response.view, current.id, ids.viewHash(), current);
    state.views.set(view.id, view);
    return view;
  }
  if (response.response_action === 'push') {
    const view = {
      ...buildView(response.view, ids.viewId(), ids.viewHash(), current),
      previous_view_id: submittedViewId,
    };
    state.views.set(view.id, view);
    return view;
  }
  return undefined;
}
