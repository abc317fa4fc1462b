import { z } from 'zod';

// The fields Bolt and the app read without checking, by kind of request: a signed request that
// lacks one (a view submission without a user, an action_id that is a number) would fail inside
// Bolt or a middleware with no answer, so it is refused at the edge instead (request-gate.ts).
// Loose objects: Slack adds fields, and only these are relied on.

const User = z.looseObject({ id: z.string() });
const View = z.looseObject({ id: z.string(), callback_id: z.string() });

const Command = z.looseObject({ command: z.string(), text: z.string(), user_id: z.string() });
const Shortcut = z.looseObject({ user: User, callback_id: z.string(), trigger_id: z.string() });
const ViewPayload = z.looseObject({ user: User, view: View });

const BY_TYPE: Record<string, z.ZodType> = {
  block_actions: z.looseObject({
    user: User,
    actions: z.array(z.looseObject({ action_id: z.string() })).min(1),
  }),
  view_submission: ViewPayload,
  view_closed: ViewPayload,
  shortcut: Shortcut,
  message_action: Shortcut,
  event_callback: z.looseObject({ event: z.looseObject({ type: z.string() }) }),
};

/** What is wrong with a parsed Slack body, or undefined when the app can read it. */
export function shapeProblem(body: Record<string, unknown>): string | undefined {
  if ('command' in body) return Command.safeParse(body).success ? undefined : 'a malformed command';
  const type = typeof body.type === 'string' ? body.type : undefined;
  const schema = type === undefined ? undefined : BY_TYPE[type];
  // Other kinds (url_verification, ssl_check, ...) are Bolt's own to answer or ignore.
  if (schema === undefined) return undefined;
  return schema.safeParse(body).success ? undefined : `a malformed ${type} payload`;
}
