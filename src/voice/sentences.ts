import { escapeMrkdwn } from '../slack/mrkdwn.ts';

// The small pieces every reply is written with, defined once: how a count reads, and how a
// reply names its app.

/** `1 change`, `3 changes`; `plural` for a noun that does not take an s (`matches`). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/** ` in *staging*` after what a reply is about, when several apps are configured; else nothing. */
export function inApp(appName: string | undefined): string {
  return appName ? ` in *${escapeMrkdwn(appName)}*` : '';
}

/**
 * A sentence with the request's reference, which finds its log lines: plain in a message's
 * `text`, in a code span in mrkdwn (copyable, and safe from the formatting around it).
 */
export function withRef(sentence: string, ref: string, format: 'text' | 'mrkdwn' = 'text'): string {
  return `${sentence} (ref ${format === 'mrkdwn' ? `\`${ref}\`` : ref})`;
}
