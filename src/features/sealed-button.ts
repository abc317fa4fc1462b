import type { z } from 'zod';
import { type CometChatApp, openSealed } from '../apps/apps.ts';
import { destinationOf, type SlackMessage } from '../slack/deliver.ts';
import type { ButtonArgs } from '../slack/listener-args.ts';
import { type RequestScope, scopeOf } from '../slack/request-context.ts';
import type { FeatureDeps } from './deps.ts';

// The buttons of a list (a page, "Share in channel"): the sealed value names the app and what to
// show, the message is rendered again, and delivered as the button wants it.

export type Render<V> = (app: CometChatApp, value: V, scope: RequestScope) => Promise<SlackMessage>;

/** A list button: its sealed value read with `schema`, rendered, shaped, delivered. */
export function sealedButton<S extends z.ZodType>(
  deps: Pick<FeatureDeps, 'apps' | 'deliver'>,
  schema: S,
  render: Render<z.infer<S>>,
  shape: (message: SlackMessage) => SlackMessage,
) {
  return async ({ ack, body, action, context }: ButtonArgs) => {
    await ack();
    const scope = scopeOf(context);
    const { app, value } = openSealed(deps.apps, schema, action.value);
    await deps.deliver(destinationOf(body), shape(await render(app, value, scope)), scope.log);
  };
}

/** A page button's answer replaces the list it was clicked in. */
export function inPlace(message: SlackMessage): SlackMessage {
  return { ...message, replace_original: true };
}
