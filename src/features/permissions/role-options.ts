import { createHash } from 'node:crypto';

// Slack caps an option value at 75 characters while a role id may have 100: long ids travel
// as a short digest and are resolved against the app's role ids when the form comes back.
const OPTION_VALUE_LIMIT = 75;

export function roleOptionValue(roleId: string): string {
  return roleId.length <= OPTION_VALUE_LIMIT
    ? roleId
    : `#${createHash('sha256').update(roleId).digest('hex').slice(0, 32)}`;
}

export function resolveRoleOption(
  value: string,
  candidates: readonly string[],
): string | undefined {
  if (!value.startsWith('#')) return value;
  return candidates.find((id) => roleOptionValue(id) === value);
}
