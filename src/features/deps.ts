import type { CometChatClient } from '../cometchat/client.ts';
import type { Deliverer } from '../slack/deliver.ts';

/** What every feature is built from; the composition root (app.ts) supplies it. */
export interface FeatureDeps {
  cometchat: CometChatClient;
  deliver: Deliverer;
  /** The CometChat time budget in seconds, for messages that mention it. */
  budgetSeconds: number;
}
