import type {
  AllMiddlewareArgs,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
  SlackShortcut,
  SlackShortcutMiddlewareArgs,
  SlackViewMiddlewareArgs,
  StaticSelectAction,
  ViewSubmitAction,
} from '@slack/bolt';

// What Bolt gives a listener, by kind, named once for every feature.

export type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;
export type SelectArgs = SlackActionMiddlewareArgs<BlockAction<StaticSelectAction>> &
  AllMiddlewareArgs;
export type SubmitArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;
export type ShortcutArgs<S extends SlackShortcut> = SlackShortcutMiddlewareArgs<S> &
  AllMiddlewareArgs;
