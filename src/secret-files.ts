import { closeSync, openSync, readSync } from 'node:fs';
import { systemCodeOf } from './error-cause.ts';

// Secrets from files: Docker and Kubernetes mount secrets as files, so every setting that holds
// a secret may instead name a file with `<NAME>_FILE`. The file's text becomes the setting's
// value before the settings are read, so it is checked, used and scrubbed from logs like any
// other. Like the rest of the settings' problems, none of these sentences repeats a value:
// a token pasted into a `_FILE` setting by mistake must not reach the log.

type Env = Readonly<Record<string, string | undefined>>;

const SUFFIX = '_FILE';
/** A token, key or password is a few hundred bytes; this bounds what a wrong path can cost. */
const MAX_SECRET_BYTES = 64 * 1024;

/**
 * The settings that hold a secret: Slack's tokens and secret, CometChat's keys and webhook
 * passwords, the store's address (a Redis password), a trace collector's headers.
 */
export function isSecretSetting(name: string): boolean {
  return (
    [
      'SLACK_BOT_TOKEN',
      'SLACK_SIGNING_SECRET',
      'SLACK_APP_TOKEN',
      'STORE_URL',
      'OTEL_EXPORTER_OTLP_HEADERS',
    ].includes(name) || /^COMETCHAT_(?:[A-Z0-9_]+_)?(?:API_KEY|WEBHOOK_PASSWORD)$/.test(name)
  );
}

/** Reads a secret's file; throws with Node's error code when it cannot. */
export type ReadSecretFile = (path: string) => string;

/** The file's text, refused when it is larger than any secret. */
export const readSecretFile: ReadSecretFile = (path) => {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(MAX_SECRET_BYTES + 1);
    const length = readSync(fd, buffer, 0, buffer.length, null);
    if (length > MAX_SECRET_BYTES) throw Object.assign(new Error('too large'), { code: 'EFBIG' });
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
};

/**
 * The environment with each secret's `<NAME>_FILE` read into `<NAME>`, and a sentence for each
 * one that cannot be: both set, a file that cannot be read, or an empty one.
 */
export function withSecretFiles(
  env: Env,
  read: ReadSecretFile = readSecretFile,
): { env: Env; problems: string[] } {
  const out: Record<string, string | undefined> = { ...env };
  const problems: string[] = [];
  for (const [key, path] of Object.entries(env)) {
    if (!key.endsWith(SUFFIX) || path === undefined || path.trim() === '') continue;
    const name = key.slice(0, -SUFFIX.length);
    if (!isSecretSetting(name)) continue;
    if ((env[name] ?? '').trim() !== '') {
      problems.push(`${name} and ${key} are both set: keep one`);
      continue;
    }
    const text = readOrProblem(key, path.trim(), read);
    if ('problem' in text) problems.push(text.problem);
    else out[name] = text.value;
  }
  return { env: out, problems };
}

function readOrProblem(
  key: string,
  path: string,
  read: ReadSecretFile,
): { value: string } | { problem: string } {
  let value: string;
  try {
    value = read(path);
  } catch (error) {
    const code = systemCodeOf(error, 1) ?? 'error';
    return {
      problem: `${key} names a file that cannot be read (${code}): it must be the path of a file holding the value`,
    };
  }
  if (value.trim() === '') return { problem: `${key} names an empty file` };
  // `echo value > file` ends the file with a line break that is not part of the secret (some
  // settings, a webhook password among them, are taken as they are, spaces included).
  return { value: value.replace(/\r?\n$/, '') };
}
