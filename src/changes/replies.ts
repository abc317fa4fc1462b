import type { RespondFn } from '@slack/bolt';
import { currentRequest } from '../request-context.ts';
import { section } from '../slack/blocks.ts';
import type { Deliverer, SlackMessage } from '../slack/deliver.ts';

/** One sentence, seen only by the person it is said to. */
export function onlyTo(sentence: string): SlackMessage {
  return {
    response_type: 'ephemeral',
    replace_original: false,
    text: sentence,
    blocks: [section(sentence)],
  };
}

/**
 * One sentence to the person who clicked, seen only by them: through Bolt's `respond` where the
 * click came with a response_url (a message's button). A click on the Home tab or in a modal has
 * none: there the sentence goes as a direct message (deliver).
 */
export async function tellClicker(
  deps: { deliver: Deliverer },
  { body, respond }: { body: { user: { id: string }; response_url?: string }; respond: RespondFn },
  sentence: string,
): Promise<void> {
  const message = onlyTo(sentence);
  if (body.response_url) await respond(message);
  else await deps.deliver({ userId: body.user.id }, message, currentRequest().log);
}
