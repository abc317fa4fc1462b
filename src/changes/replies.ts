import type { RespondFn } from '@slack/bolt';
import { noticeMessage } from '../slack/blocks.ts';
import { type Deliverer, recipientOf, respondOrFallBack } from '../slack/deliver.ts';

/**
 * One sentence to the person who clicked, seen only by them and beside the message they clicked
 * in: Bolt's `respond`, else its fallbacks (a click on the Home tab or in a modal has no
 * response_url: a direct message then).
 */
export function replyPrivately(
  deps: { deliver: Deliverer },
  args: {
    body: { user: { id: string }; channel?: { id: string } | undefined };
    respond: RespondFn | undefined;
  },
  sentence: string,
): Promise<void> {
  const reply = respondOrFallBack(args.respond, recipientOf(args.body), deps.deliver);
  return reply({ ...noticeMessage(sentence), replace_original: false });
}
