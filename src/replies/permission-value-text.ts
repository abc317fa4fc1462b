import { valueInWords } from '../cometchat/catalogue.ts';
import type { PermissionValue } from '../cometchat/schemas.ts';
import { codeList, escapeMrkdwn, truncate } from '../slack/mrkdwn.ts';

/**
 * A permission value as mrkdwn, the way the review, the result and the audit trail show it: role
 * ids (`ids`) as code, each copied exactly (whole ids only when cut at `max`); anything else in
 * words (valueInWords), escaped. Shared by every change's views and the features.
 */
export function permissionValueText(
  value: PermissionValue | undefined,
  ids: boolean,
  max?: number,
): string {
  if (ids && value && value.length > 0) return codeList(value, max);
  const words = valueInWords(value);
  return escapeMrkdwn(max === undefined ? words : truncate(words, max));
}
