import type { z } from 'zod';
import { type CometChatApp, openSigned } from '../apps/apps.ts';
import { recipientOf, respondOrFallBack, type SlackMessage } from '../slack/deliver.ts';
import type { ButtonArgs } from '../slack/listener-args.ts';
import type { FeatureDeps } from './deps.ts';

// The buttons of a list (a page, "Share in channel"): the signed value names the app and what to
// show, the message is rendered again, and sent as the button wants it.

export type Render<V> = (app: CometChatApp, value: V) => Promise<SlackMessage>;

/** A list button: its signed value read with `schema`, rendered, shaped, sent with `respond`. */
export function signedButton<S extends z.ZodType>(
  deps: Pick<FeatureDeps, 'apps' | 'deliver'>,
  schema: S,
  render: Render<z.infer<S>>,
  shape: (message: SlackMessage) => SlackMessage,
) {
  return async ({ ack, body, action, respond }: ButtonArgs) => {
    await ack();
    const { app, value } = openSigned(deps.apps, schema, action.value);
    const message = shape(await render(app, value));
    await respondOrFallBack(respond, recipientOf(body), deps.deliver)(message);
  };
}

/** A page button's answer replaces the list it was clicked in. */
export function inPlace(message: SlackMessage): SlackMessage {
  return { ...message, replace_original: true };
}
