/**
 * Payloads shaped like the ones Slack sends for commands and interactions, as pure functions of
 * who acts (`Actor`) and the one-time values Slack mints per request (`Fresh`). The same objects
 * go over HTTP (form-encoded) and over Socket Mode (as an envelope's payload).
 */
import { isRecord } from './is-record.ts';

export interface Actor {
  teamId: string;
  teamDomain: string;
  userId: string;
  userName: string;
  channelId: string;
  channelName: string;
  apiAppId: string;
  /** The deprecated verification token Slack still sends as `token`. */
  verificationToken: string;
}

/** Values Slack mints for each request. */
export interface Fresh {
  triggerId: string;
  responseUrl: string;
  /** `seconds.micros`, as in `action_ts` */
  actionTs: string;
}

/** A slash command as Slack form-encodes it. */
export interface SlashCommandFields {
  token: string;
  team_id: string;
  team_domain: string;
  channel_id: string;
  channel_name: string;
  user_id: string;
  user_name: string;
  command: string;
  text: string;
  api_app_id: string;
  is_enterprise_install: string;
  response_url: string;
  trigger_id: string;
}

export function slashCommandFields(
  actor: Actor,
  fresh: Fresh,
  command: string,
  text: string,
  overrides: Partial<SlashCommandFields> = {},
): SlashCommandFields {
  return {
    token: actor.verificationToken,
    team_id: actor.teamId,
    team_domain: actor.teamDomain,
    channel_id: actor.channelId,
    channel_name: actor.channelName,
    user_id: actor.userId,
    user_name: actor.userName,
    command,
    text,
    api_app_id: actor.apiAppId,
    is_enterprise_install: 'false',
    response_url: fresh.responseUrl,
    trigger_id: fresh.triggerId,
    ...overrides,
  };
}

/** Slack's state shape: block_id -> action_id -> the element's value, e.g. `{ type, value }`. */
export type StateValues = Record<string, Record<string, Record<string, unknown>>>;

export interface BlockActionOptions {
  actionId: string;
  /** A button's value; taken from the element in `message` / `view` when not given. */
  value?: string;
  /** For selects and overflow menus: the option the user picked. */
  selectedOption?: { value: string; text?: string };
  /** Found in `message` / `view` blocks when not given. */
  blockId?: string;
  /** Slack sends one for actions in messages, never for actions in views. */
  responseUrl?: string;
  /** The view the action happened in (as the stand-in returned it). */
  view?: Record<string, unknown>;
  /** The message the action happened in; without `message` and `view`, an ephemeral message. */
  message?: { ts: string; text?: string; blocks?: unknown[]; user?: string };
  /** What the user had entered in other inputs of the view or message. */
  values?: StateValues;
}

interface FoundElement {
  blockId: string;
  element: Record<string, unknown>;
}

function elementsOf(block: Record<string, unknown>): unknown[] {
  return [...(Array.isArray(block.elements) ? block.elements : []), block.accessory, block.element];
}

/** The interactive element with `actionId` in `blocks`, and the block holding it. */
export function findElement(blocks: unknown, actionId: string): FoundElement | undefined {
  if (!Array.isArray(blocks)) return undefined;
  for (const block of blocks) {
    if (!isRecord(block)) continue;
    const element = elementsOf(block).find((e) => isRecord(e) && e.action_id === actionId);
    if (isRecord(element)) {
      return { blockId: typeof block.block_id === 'string' ? block.block_id : '', element };
    }
  }
  return undefined;
}

function plainText(text: string): Record<string, unknown> {
  return { type: 'plain_text', text, emoji: true };
}

function optionText(element: Record<string, unknown>, value: string): string {
  const options = Array.isArray(element.options) ? element.options : [];
  const option = options.find((o) => isRecord(o) && o.value === value);
  return isRecord(option) && isRecord(option.text) && typeof option.text.text === 'string'
    ? option.text.text
    : value;
}

function userOf(actor: Actor): Record<string, unknown> {
  return {
    id: actor.userId,
    username: actor.userName,
    name: actor.userName,
    team_id: actor.teamId,
  };
}

function teamOf(actor: Actor): Record<string, unknown> {
  return { id: actor.teamId, domain: actor.teamDomain };
}

function actionOf(
  options: BlockActionOptions,
  found: FoundElement | undefined,
  actionTs: string,
): Record<string, unknown> {
  const element = found?.element ?? {};
  const common = {
    action_id: options.actionId,
    block_id: options.blockId ?? found?.blockId ?? 'standin_block',
    action_ts: actionTs,
  };
  if (options.selectedOption !== undefined) {
    const { value, text } = options.selectedOption;
    return {
      ...common,
      type: typeof element.type === 'string' ? element.type : 'static_select',
      selected_option: { text: plainText(text ?? optionText(element, value)), value },
    };
  }
  const label =
    isRecord(element.text) && typeof element.text.text === 'string' ? element.text.text : '';
  return {
    ...common,
    type: typeof element.type === 'string' ? element.type : 'button',
    text: plainText(label),
    value: options.value ?? (typeof element.value === 'string' ? element.value : ''),
    ...(typeof element.style === 'string' ? { style: element.style } : {}),
  };
}

export function blockActionPayload(
  actor: Actor,
  fresh: Fresh,
  options: BlockActionOptions,
): Record<string, unknown> {
  const base = {
    type: 'block_actions',
    user: userOf(actor),
    api_app_id: actor.apiAppId,
    token: actor.verificationToken,
    trigger_id: fresh.triggerId,
    team: teamOf(actor),
    enterprise: null,
    is_enterprise_install: false,
  };
  if (options.view !== undefined) {
    const found = findElement(options.view.blocks, options.actionId);
    const state = isRecord(options.view.state) ? options.view.state : {};
    return {
      ...base,
      container: { type: 'view', view_id: options.view.id },
      view: { ...options.view, state: { ...state, values: options.values ?? {} } },
      actions: [actionOf(options, found, fresh.actionTs)],
    };
  }
  const { message } = options;
  const found = findElement(message?.blocks, options.actionId);
  return {
    ...base,
    container: {
      type: 'message',
      message_ts: message?.ts ?? fresh.actionTs,
      channel_id: actor.channelId,
      // A reply sent through response_url is ephemeral; Slack then sends no `message`.
      is_ephemeral: message === undefined,
    },
    channel: { id: actor.channelId, name: actor.channelName },
    ...(message !== undefined
      ? {
          message: {
            type: 'message',
            user: message.user ?? actor.userId,
            ts: message.ts,
            text: message.text ?? '',
            team: actor.teamId,
            ...(message.blocks !== undefined ? { blocks: message.blocks } : {}),
          },
        }
      : {}),
    state: { values: options.values ?? {} },
    response_url: options.responseUrl ?? fresh.responseUrl,
    actions: [actionOf(options, found, fresh.actionTs)],
  };
}

export interface ViewSubmissionOptions {
  /** The view as the stand-in last returned it from views.open / views.update / views.push. */
  view: Record<string, unknown>;
  values: StateValues;
}

export function viewSubmissionPayload(
  actor: Actor,
  fresh: Fresh,
  options: ViewSubmissionOptions,
): Record<string, unknown> {
  const state = isRecord(options.view.state) ? options.view.state : {};
  return {
    type: 'view_submission',
    team: teamOf(actor),
    user: userOf(actor),
    api_app_id: actor.apiAppId,
    token: actor.verificationToken,
    trigger_id: fresh.triggerId,
    view: { ...options.view, state: { ...state, values: options.values } },
    response_urls: [],
    enterprise: null,
    is_enterprise_install: false,
  };
}

export interface MessageShortcutOptions {
  callbackId: string;
  message: { text: string; ts: string; user?: string };
}

export function messageShortcutPayload(
  actor: Actor,
  fresh: Fresh,
  options: MessageShortcutOptions,
): Record<string, unknown> {
  return {
    type: 'message_action',
    token: actor.verificationToken,
    action_ts: fresh.actionTs,
    team: teamOf(actor),
    user: userOf(actor),
    channel: { id: actor.channelId, name: actor.channelName },
    is_enterprise_install: false,
    enterprise: null,
    callback_id: options.callbackId,
    trigger_id: fresh.triggerId,
    response_url: fresh.responseUrl,
    message_ts: options.message.ts,
    message: {
      type: 'message',
      user: options.message.user ?? actor.userId,
      ts: options.message.ts,
      text: options.message.text,
      team: actor.teamId,
    },
  };
}

export function globalShortcutPayload(
  actor: Actor,
  fresh: Fresh,
  options: { callbackId: string },
): Record<string, unknown> {
  return {
    type: 'shortcut',
    token: actor.verificationToken,
    action_ts: fresh.actionTs,
    team: teamOf(actor),
    user: { id: actor.userId, username: actor.userName, team_id: actor.teamId },
    is_enterprise_install: false,
    enterprise: null,
    callback_id: options.callbackId,
    trigger_id: fresh.triggerId,
  };
}

export interface BlockSuggestionOptions {
  /** The `external_select`'s action id and its block's id. */
  actionId: string;
  blockId: string;
  /** What the person has typed so far. */
  value: string;
  /** The view the select is in (as the stand-in returned it); its private_metadata goes along. */
  view?: Record<string, unknown>;
  /** What the person had entered in the view's other inputs (Slack sends the view's state). */
  values?: StateValues;
}

/**
 * What Slack sends to load an `external_select`'s options as the person types: a
 * `block_suggestion`, answered with `{ options }` within three seconds.
 * https://docs.slack.dev/reference/block-kit/block-elements/select-menu-element#external_select
 */
export function blockSuggestionPayload(
  actor: Actor,
  options: BlockSuggestionOptions,
): Record<string, unknown> {
  const { view } = options;
  const state = view && isRecord(view.state) ? view.state : {};
  return {
    type: 'block_suggestion',
    user: userOf(actor),
    container: view ? { type: 'view', view_id: view.id } : { type: 'message' },
    api_app_id: actor.apiAppId,
    token: actor.verificationToken,
    action_id: options.actionId,
    block_id: options.blockId,
    value: options.value,
    team: teamOf(actor),
    enterprise: null,
    is_enterprise_install: false,
    ...(view ? { view: { ...view, state: { ...state, values: options.values ?? {} } } } : {}),
  };
}
