import type { RichTextElement } from '@slack/types';
import { type Catalogue, SHIPPED_CATALOGUE } from '../cometchat/catalogue.ts';
import { code, escapeMrkdwn, truncate } from '../slack/mrkdwn.ts';

// A permission key as people read it, the same wherever one is shown (the editor's review, the
// result, approvals, the audit trail, a user's card, "can", compare): its label, as CometChat's
// dashboard names it, then the key itself as code, which copies exactly. Shared by every change's views
// and the features.

/** Labels are short; one from an app's CometChat (its title) is cut here. */
const LABEL_SHOWN = 80;

/** The label worth showing for `key`: none when the catalogue has none, or it is the key itself. */
function labelFor(key: string, catalogue: Pick<Catalogue, 'labelOf'>): string | undefined {
  const label = catalogue.labelOf(key);
  return label && label !== key ? truncate(label, LABEL_SHOWN) : undefined;
}

/**
 * `*Message Sending* (`sendMessage`)` in mrkdwn: the label escaped (an app's CometChat names the
 * keys only it defines), the key as code; a key without a label as code alone. `catalogue` is the
 * app's where it is at hand, else the shipped one.
 */
export function permissionKeyText(
  key: string,
  catalogue: Pick<Catalogue, 'labelOf'> = SHIPPED_CATALOGUE,
): string {
  const label = labelFor(key, catalogue);
  return label ? `*${escapeMrkdwn(label)}* (${code(key)})` : code(key);
}

/**
 * The same as rich-text runs, for a table cell (not parsed: nothing to escape), the key cut at
 * `keyShown` characters.
 */
export function permissionKeyRuns(
  key: string,
  keyShown: number,
  catalogue: Pick<Catalogue, 'labelOf'> = SHIPPED_CATALOGUE,
): RichTextElement[] {
  const label = labelFor(key, catalogue);
  const keyRun: RichTextElement = {
    type: 'text',
    text: truncate(key, keyShown),
    style: { code: true },
  };
  if (!label) return [keyRun];
  return [
    { type: 'text', text: label, style: { bold: true } },
    { type: 'text', text: ' (' },
    keyRun,
    { type: 'text', text: ')' },
  ];
}
