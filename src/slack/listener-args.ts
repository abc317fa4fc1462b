import type {
  AllMiddlewareArgs,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
  SlackEventMiddlewareArgs,
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
/** A Workflow Builder step's run (`app.function`): its inputs, `complete` and `fail`. */
export type StepArgs = SlackEventMiddlewareArgs<'function_executed'> & AllMiddlewareArgs;
