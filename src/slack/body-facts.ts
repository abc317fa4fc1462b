import type { AnyMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';

// What the app reads from any Slack body, whatever its kind (a command, an action, a view, a
// shortcut, an event): read once, here, through one loose schema. A field of the wrong type
// reads as absent; the request gate (payload-shapes.ts) has refused what a listener needs.

const text = z.string().optional().catch(undefined);
const withId = z
  .looseObject({ id: z.string().optional().catch(undefined) })
  .nullish()
  .catch(undefined);

const Body = z.looseObject({
  type: text,
  command: text,
  text,
  callback_id: text,
  response_url: text,
  response_urls: z
    .array(z.looseObject({ response_url: text }))
    .optional()
    .catch(undefined),
  channel_id: text,
  channel: withId,
  user_id: text,
  user: withId,
  team_id: text,
  team: withId,
  actions: z
    .array(z.looseObject({ action_id: text }))
    .optional()
    .catch(undefined),
  event: z.looseObject({ type: text }).optional().catch(undefined),
  view: z
    .looseObject({
      id: text,
      type: text,
      callback_id: text,
      app_installed_team_id: text,
    })
    .optional()
    .catch(undefined),
});

export interface BodyFacts {
  /** `command` for a slash command, else the payload's type (`block_actions`, ...). */
  kind: string | undefined;
  command: string | undefined;
  /** The first word after the command, for the log. */
  subcommand: string | undefined;
  /** The command's first two words, as typed (an app's name may come before the subcommand). */
  words: string[];
  action: string | undefined;
  callback: string | undefined;
  /** An Events API event's type. */
  eventType: string | undefined;
  userId: string | undefined;
  channelId: string | undefined;
  responseUrl: string | undefined;
  /** The modal the request came from, if any. */
  view: { id: string | undefined; type: string | undefined } | undefined;
  /** The request's team as Bolt reads it (see one-workspace.ts). */
  team: string | undefined;
  /**
   * Every team the request names as Bolt authorises with: a command's `team_id`, an
   * interaction's `team`, a view's installing team.
   */
  teams: string[];
}

/** A body's facts, read once per request: every middleware and reply asks the same object. */
const read = new WeakMap<object, BodyFacts>();

export function factsOf(body: unknown): BodyFacts {
  if (typeof body !== 'object' || body === null) return readFacts(body);
  const known = read.get(body);
  if (known) return known;
  const facts = readFacts(body);
  read.set(body, facts);
  return facts;
}

function readFacts(body: unknown): BodyFacts {
  const parsed = Body.safeParse(body);
  const b = parsed.success ? parsed.data : {};
  const teams = [b.team_id, b.team?.id, b.view?.app_installed_team_id];
  const words = (b.text ?? '')
    .trim()
    .split(/\s+/, 2)
    .filter((word) => word !== '');
  return {
    kind: b.command ? 'command' : b.type,
    command: b.command,
    subcommand: words[0]?.slice(0, 20),
    words,
    action: b.actions?.[0]?.action_id,
    callback: b.callback_id ?? b.view?.callback_id,
    eventType: b.event?.type,
    userId: b.user_id ?? b.user?.id ?? undefined,
    channelId: b.channel_id ?? b.channel?.id ?? undefined,
    responseUrl: b.response_url ?? b.response_urls?.[0]?.response_url,
    view: b.view && { id: b.view.id, type: b.view.type },
    team: b.team_id ?? b.team?.id ?? undefined,
    teams: teams.filter((team): team is string => typeof team === 'string' && team !== ''),
  };
}

/** An acknowledgement as a global middleware may send it, whatever the request's kind. */
export type AnyAck = (response?: unknown) => Promise<void>;

/**
 * The request's `ack`, for a global middleware that answers a request itself (a refusal): Bolt
 * gives one to every kind but an event, each typed for its kind, which a middleware that sees
 * every kind cannot name.
 */
export function ackOf(args: AnyMiddlewareArgs): AnyAck | undefined {
  const ack: unknown = 'ack' in args ? args.ack : undefined;
  if (typeof ack !== 'function') return undefined;
  return async (response) => {
    await ack(response);
  };
}
