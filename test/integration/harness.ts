import { expect } from 'vitest';
import type { Sandbox } from '../../offline/cometchat-standin/server.ts';
import { assertWithinLimits } from '../../offline/slack-standin/block-kit-limits.ts';
import type { SlackDriver, SlashCommandFields } from '../../offline/slack-standin/driver.ts';
import {
  type OfflineStack,
  type OfflineStackOptions,
  startOfflineStack,
} from '../../offline/stack/offline-stack.ts';
import { cellText } from '../../offline/stack/terminal-render.ts';
import type { Access } from '../../src/access/access.ts';
import { type Apps, createApps, signedValue } from '../../src/apps/apps.ts';
import type { CometChatClient } from '../../src/cometchat/client.ts';
import { LogCapture, type LogRecord } from '../log-capture.ts';

export interface Harness<A extends string = string> extends OfflineStack<A> {
  logs: LogCapture;
  /** Messages posted to response_urls and through the Web API, in order. */
  messages(): Record<string, unknown>[];
  /** Views opened, updated or pushed, in order. */
  views(): Record<string, unknown>[];
  /** Checks every message and view that reached Slack against Block Kit's limits. */
  checkAllPayloads(): void;
}

/** With `apps: ['staging', 'prod']`, `h.sandboxes.prod` is prod's sandbox (typed as such). */
export async function startHarness<const A extends string = 'default'>(
  options: OfflineStackOptions<A> = {},
): Promise<Harness<A>> {
  const logs = new LogCapture();
  const stack = await startOfflineStack({
    ...options,
    env: {
      LOG_LEVEL: 'debug',
      // Tests change the sandbox's roles and faults between requests; a cached list would hide
      // that. The cache has tests of its own.
      COMETCHAT_ROLE_CACHE_SECONDS: '0',
      ...options.env,
    },
    logDestination: logs,
  });
  const messages = () => [
    ...stack.slack.responses.map((r) => r.body),
    ...stack.slack.calls
      .filter((c) => ['chat.postMessage', 'chat.postEphemeral', 'chat.update'].includes(c.method))
      .map((c) => c.args),
  ];
  const views = () =>
    stack.slack.calls
      .filter((c) => c.method.startsWith('views.'))
      .map((c) => c.args.view as Record<string, unknown>);
  return {
    ...stack,
    logs,
    messages,
    views,
    checkAllPayloads() {
      for (const message of messages()) assertWithinLimits('message', message);
      // A post the stand-in refused (an injected failure, a used-up url) was still built by the app.
      for (const refused of stack.slack.refusedResponses) {
        if (isRecord(refused.body)) assertWithinLimits('message', refused.body);
      }
      for (const view of views()) assertWithinLimits('view', view);
      // Views the app returned in a response_action (push/update) reach Slack in the HTTP
      // answer, not through the Web API; the stand-in keeps them with the others.
      for (const view of stack.slack.views.values()) assertWithinLimits('view', view);
      for (const ack of stack.slack.acks) {
        const payload = ack.payload as { view?: unknown } | undefined;
        if (payload?.view) assertWithinLimits('view', payload.view);
      }
    },
  };
}

/**
 * The sandbox of the app called `name`, for a harness whose app names are not known to the type
 * (one typed `Harness`); throws when the stack serves no such app.
 */
export function sandboxOf(h: Pick<OfflineStack, 'sandboxes'>, name: string): Sandbox {
  const sandbox = h.sandboxes[name];
  if (sandbox === undefined) {
    throw new Error(
      `no sandbox for the app "${name}" (apps: ${Object.keys(h.sandboxes).join(', ')})`,
    );
  }
  return sandbox;
}

export type Block = Record<string, unknown> & { type: string };
export type Button = { action_id: string; value?: string; text: { text: string } };

/** The blocks of a message or view. */
export function blocksOf(payload: Record<string, unknown>): Block[] {
  return (payload.blocks ?? []) as Block[];
}

/** Buttons in `actions` blocks, in order. */
export function actionButtons(payload: Record<string, unknown>): Button[] {
  return blocksOf(payload)
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements as Button[]);
}

/**
 * The message's table, a row of cell texts each, the header row first (raw text as it is, rich
 * text as Slack shows it: `@U…` for a person, a date by its ISO fallback); none: empty.
 */
export function tableRows(payload: Record<string, unknown>): string[][] {
  const table = blocksOf(payload).find((b) => b.type === 'table');
  return ((table?.rows ?? []) as unknown[][]).map((row) => row.map(cellText));
}

/** The table's rows after the header, each keyed by its column's title. */
export function tableRecords(payload: Record<string, unknown>): Record<string, string>[] {
  const [titles = [], ...rows] = tableRows(payload);
  return rows.map((row) => Object.fromEntries(titles.map((title, i) => [title, row[i] ?? ''])));
}

/** All mrkdwn/plain text in a payload, for assertions on what a person would read. */
export function textOf(value: unknown): string {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [key, inner] of Object.entries(v))
        if (key !== 'private_metadata' && key !== 'value') walk(inner);
    }
  };
  walk(value);
  return out.join('\n');
}

export function expectNoMentions(payload: unknown): void {
  const text = textOf(payload);
  expect(text).not.toMatch(/<[!@#]/);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The text Slack parses as markup in a message or view: every `mrkdwn` text object, and a
 * message's top-level `text` (notifications and fallbacks). `plain_text` is shown as typed.
 */
export function markupOf(payload: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (isRecord(v)) {
      if (v.type === 'mrkdwn' && typeof v.text === 'string') out.push(v.text);
      for (const inner of Object.values(v)) if (typeof inner === 'object') walk(inner);
    }
  };
  if (isRecord(payload) && typeof payload.text === 'string') out.push(payload.text);
  walk(payload);
  return out;
}

/** Slack's date token, `<!date^UNIX^FORMAT|FALLBACK>`: markup the app writes itself. */
const DATE_TOKEN = /<!date\^\d+\^[^|<>]*\|[^<>]*>/g;

/**
 * Rich text's elements that mention or link. A `user` element is not among them: the app writes
 * one only for a Slack user id it holds itself (who made a change, in the audit list).
 */
const RICH_MARKUP = new Set(['broadcast', 'channel', 'usergroup', 'team', 'link']);

/**
 * No mention (`<!channel>`, `<!here>`, `<@U…>`, `<#C…>`) and no link in what Slack would parse,
 * whatever the service data held: mrkdwn, and rich text's mention and link elements (a table's
 * raw text is not parsed). The app's own date tokens are allowed, and links that start with one
 * of `allowedLinks` (recording URLs a test expects).
 */
export function expectNoInjectedMarkup(
  payload: unknown,
  allowedLinks: readonly string[] = [],
): void {
  const isAllowed = (link: string) => allowedLinks.some((prefix) => link.startsWith(prefix));
  for (const text of markupOf(payload)) {
    const rest = text.replace(DATE_TOKEN, '');
    expect(rest, text).not.toMatch(/<[!@#]/);
    for (const link of rest.match(/<[^<>]*>/g) ?? []) {
      expect(isAllowed(link.slice(1)), `unexpected link ${link} in ${text}`).toBe(true);
    }
  }
  JSON.stringify(payload, (_key, value: unknown) => {
    if (isRecord(value) && typeof value.type === 'string' && RICH_MARKUP.has(value.type)) {
      const link = value.type === 'link' && typeof value.url === 'string' ? value.url : undefined;
      expect(link !== undefined && isAllowed(link), `rich text ${JSON.stringify(value)}`).toBe(
        true,
      );
    }
    return value;
  });
}

/** The id in a failure's `Reference: \`…\`` line, or undefined when there is none. */
export function referenceOf(payload: unknown): string | undefined {
  return /Reference: `([0-9a-f]+)`/.exec(textOf(payload))?.[1];
}

/**
 * Sends `/cometchat <text>` (as `driver`'s user, the harness's own unless said), checks that it
 * was acknowledged, and resolves with the first reply posted to the response_url after it.
 */
export async function commandReply(
  h: Harness,
  text: string,
  driver: SlackDriver = h.driver,
  /** The command's fields as Slack would send them otherwise (the channel it is typed in). */
  overrides: Partial<SlashCommandFields> = {},
): Promise<Record<string, unknown>> {
  const before = h.slack.responses.length;
  const sent = await driver.command(text, overrides);
  expect(sent.status).toBe(200);
  return (await h.slack.nextResponse(before)).body;
}

/** {@link commandReply}, as the text a person would read. */
export async function commandText(
  h: Harness,
  text: string,
  driver: SlackDriver = h.driver,
): Promise<string> {
  return textOf(await commandReply(h, text, driver));
}

/** Sends an interaction, checks that it was acknowledged, and resolves with the next reply. */
export async function interactionReply(
  h: Harness,
  payload: object,
): Promise<Record<string, unknown>> {
  const before = h.slack.responses.length;
  const sent = await h.driver.interaction(payload);
  expect(sent.status).toBe(200);
  return (await h.slack.nextResponse(before)).body;
}

/** The log records that carry `ref` (the request's reference id). */
export function logsWithRef(h: Harness, ref: string): LogRecord[] {
  return h.logs.records().filter((record) => record.cometchat_ops.ref === ref);
}

/**
 * What a value the app wrote for Slack to carry back says (a button's value, a modal's
 * private_metadata): its JSON, with the app's signature (`<signature>.<json>`) taken off.
 */
export function signedJson(raw: unknown): Record<string, unknown> {
  const text = String(raw);
  return JSON.parse(text.slice(text.indexOf('.') + 1)) as Record<string, unknown>;
}

/**
 * The CometChat apps the harness's app serves, made from its own configuration: a value signed
 * for one of them is signed as the app signs it (the key is derived from the app's API key).
 */
export function appsOf(h: Pick<OfflineStack, 'config'>): Apps {
  return createApps(
    h.config.cometchat.apps.map((settings) => ({
      name: settings.name,
      appId: settings.appId,
      region: settings.region,
      apiKey: settings.apiKey,
      // Only signing is asked of these apps.
      cometchat: {} as CometChatClient,
      access: {} as Access,
    })),
  );
}

/** `payload` as the app writes a value for Slack to carry back: signed for the app `name`. */
export function signedTestValue(
  h: Pick<OfflineStack, 'config'>,
  payload: Record<string, unknown>,
  name = 'default',
): string {
  const app = appsOf(h).byName(name);
  if (!app) throw new Error(`the harness serves no app "${name}"`);
  return signedValue(app, payload);
}
