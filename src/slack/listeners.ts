import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  Middleware,
  SlackAction,
  SlackActionMiddlewareArgs,
  SlackShortcut,
  SlackShortcutMiddlewareArgs,
  SlackViewAction,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';

// Bolt runs the matching middleware of every listener it has for every request it receives: with
// a listener per button, modal and shortcut (about thirty), a command paid for thirty chains
// that each copied the request's arguments, only to find the payload was not theirs; that was a
// fifth of the CPU `/cometchat help` costs. Features register here instead. Bolt gets one
// listener per kind of payload, and the handler is found by its id in a map, then among the
// patterns (paged buttons carry their page in the id) in the order they were added.

/** Where features attach their buttons, modals and shortcuts. */
export interface Listeners {
  /** A `block_actions` handler, by `action_id` or a pattern of it. */
  action<A extends SlackAction = BlockAction>(
    id: string | RegExp,
    handler: Middleware<SlackActionMiddlewareArgs<A>>,
  ): void;
  /** A `view_submission` handler, by the view's `callback_id`. */
  view<V extends SlackViewAction = ViewSubmitAction>(
    callbackId: string,
    handler: Middleware<SlackViewMiddlewareArgs<V>>,
  ): void;
  /** A global or message shortcut handler, by its `callback_id`. */
  shortcut<S extends SlackShortcut = SlackShortcut>(
    callbackId: string,
    handler: Middleware<SlackShortcutMiddlewareArgs<S>>,
  ): void;
  /** Events go to Bolt as they are: the app listens to one. */
  event: App['event'];
}

/** Handlers by id: an exact id first, else the first pattern that matches. */
export interface HandlerTable<H> {
  add(id: string | RegExp, handler: H): void;
  find(id: string | undefined): H | undefined;
}

export function handlerTable<H>(kind: string): HandlerTable<H> {
  const exact = new Map<string, H>();
  const patterns: [RegExp, H][] = [];
  return {
    add(id, handler) {
      if (typeof id !== 'string') {
        patterns.push([id, handler]);
        return;
      }
      // Two handlers for one id would leave the second unreachable: a mistake in the code.
      if (exact.has(id)) throw new Error(`two ${kind} handlers for ${id}`);
      exact.set(id, handler);
    },
    find(id) {
      if (id === undefined) return undefined;
      const handler = exact.get(id);
      if (handler !== undefined) return handler;
      for (const [pattern, candidate] of patterns) if (pattern.test(id)) return candidate;
      return undefined;
    },
  };
}

type Args = AllMiddlewareArgs & { body: unknown };
type Handler = (args: Args) => Promise<void>;

/**
 * Registers one Bolt listener for actions, one for view submissions and one for shortcuts, each
 * handing the request to the handler its id names. A payload no handler claims is left alone,
 * as Bolt leaves one no listener matches.
 */
export function createListeners(app: App): Listeners {
  const actions = handlerTable<Handler>('action');
  const views = handlerTable<Handler>('view');
  const shortcuts = handlerTable<Handler>('shortcut');
  const dispatch =
    (table: HandlerTable<Handler>, idOf: (body: never) => string | undefined) =>
    async (args: Args) => {
      const handler = table.find(idOf(args.body as never));
      if (handler) await handler(args);
    };
  // Bolt's own matching, for the kind only: these patterns match every id.
  app.action(
    /(?:)/,
    dispatch(
      actions,
      (body: { actions?: { action_id?: string }[] }) => body.actions?.[0]?.action_id,
    ),
  );
  app.view(
    /(?:)/,
    dispatch(views, (body: { view?: { callback_id?: string } }) => body.view?.callback_id),
  );
  app.shortcut(
    /(?:)/,
    dispatch(shortcuts, (body: { callback_id?: string }) => body.callback_id),
  );
  return {
    action: (id, handler) => actions.add(id, handler as unknown as Handler),
    view: (callbackId, handler) => views.add(callbackId, handler as unknown as Handler),
    shortcut: (callbackId, handler) => shortcuts.add(callbackId, handler as unknown as Handler),
    event: app.event.bind(app),
  };
}
