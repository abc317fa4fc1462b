// The one scrub of secret values, below everything that shows or writes text: the logger's last
// step (log.ts), the CometChat client's errors (cometchat/send.ts) and every reply that may hold
// words from CometChat or Slack (replies/failure.ts).

/** Shorter values are not taken for secrets: scrubbing `abc` everywhere would garble text. */
const MIN_SECRET_LENGTH = 4;

/** `text` with every secret of `secrets` (Config.secrets: every secret setting's value) made `[redacted]`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    if (out.includes(secret)) out = out.split(secret).join('[redacted]');
    // The same value as JSON would escape it (only matters for unusual characters).
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret && out.includes(escaped)) out = out.split(escaped).join('[redacted]');
  }
  return out;
}
