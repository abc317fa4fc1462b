import { z } from 'zod';

// The bodies Slack sends, by kind, as Bolt will read and route them: a signed request of any
// other shape (a form field given twice, an action_id that is a number, a view without its
// state) would fail inside Bolt, a middleware or a listener with no answer, so it is refused at
// the edge instead (request-gate.ts). A field is required when Bolt or the app relies on it, and
// typed wherever it is read; objects are loose, since Slack adds fields.

/** Where a body's fields came from: a form's fields, a form's `payload` (JSON), a JSON body. */
export type BodySource = 'form' | 'payload' | 'json';

const User = z.looseObject({ id: z.string() });
/** Null for an organisation-wide install. */
const Team = z.looseObject({ id: z.string() }).nullable();
const Option = z.looseObject({ value: z.string() });
/** Bolt reads a channel's id wherever a `channel` is present: never null. */
const Channel = z.looseObject({ id: z.string() });

/** What an input or an interactive element holds, by its type (a state value, an action). */
const Chosen = {
  type: z.string(),
  value: z.string().nullable().optional(),
  // Slack sends null when an option is deselected.
  selected_option: Option.nullable().optional(),
  selected_options: z.array(Option).optional(),
};
const StateValues = z.record(z.string(), z.record(z.string(), z.looseObject(Chosen)));
const State = z.looseObject({ values: StateValues });

const View = z.looseObject({
  id: z.string(),
  type: z.string(),
  callback_id: z.string(),
  private_metadata: z.string(),
  hash: z.string().optional(),
  state: State,
  app_installed_team_id: z.string().optional(),
});

/** Bolt reads the first one's address for `respond` from a body of any kind. */
const ResponseUrls = z.array(z.looseObject({ response_url: z.string() })).optional();

/** Who acts, in every interaction: Bolt reads the user's id and the team (or the user's). */
const interaction = <T extends string>(type: T) =>
  z.looseObject({
    type: z.literal(type),
    user: User,
    team: Team,
    enterprise: z.looseObject({ id: z.string() }).nullable().optional(),
    response_urls: ResponseUrls,
  });

const Shortcut = { callback_id: z.string(), trigger_id: z.string() };

/** Bolt's getTypeAndConversation reads these of any event before it routes it. */
const Event = z.looseObject({
  type: z.string(),
  user: z.union([z.string(), User]).optional(),
  channel: z.union([z.string(), z.looseObject({ id: z.string() })]).optional(),
  item: z.looseObject({}).optional(),
  subteam: z.looseObject({}).optional(),
});

/**
 * The events the app listens to, with the fields their listeners read, and the one Bolt reads
 * more of (a workflow step's: it will not route one without its execution id, and reads its
 * function's callback id before any listener, throwing on a body without one).
 */
const EVENTS: Record<string, z.ZodType> = {
  function_executed: z.looseObject({
    function: z.looseObject({ callback_id: z.string() }),
    function_execution_id: z.string(),
    bot_access_token: z.string().optional(),
  }),
  app_home_opened: z.looseObject({ user: z.string(), tab: z.string().optional() }),
  link_shared: z.looseObject({
    user: z.string(),
    channel: z.string(),
    message_ts: z.string(),
    links: z.array(z.looseObject({ url: z.string() })),
    unfurl_id: z.string().optional(),
    source: z.string().optional(),
  }),
};

const EventCallback = z.looseObject({
  type: z.literal('event_callback'),
  team_id: z.string(),
  event: Event,
  // Bolt reads the first authorization's team and enterprise.
  authorizations: z.array(z.looseObject({ team_id: z.string().nullable().optional() })).optional(),
  response_urls: ResponseUrls,
});

const SHAPES: Record<string, { source: BodySource; schema: z.ZodType }> = {
  // Unsigned, and answered by Bolt itself: exactly the two fields Slack sends.
  ssl_check: {
    source: 'form',
    schema: z.strictObject({ ssl_check: z.literal('1'), token: z.string() }),
  },
  command: {
    source: 'form',
    // Every field given once: a field given twice reads as an array.
    schema: z
      .object({
        command: z.string(),
        text: z.string(),
        team_id: z.string(),
        channel_id: z.string(),
        user_id: z.string(),
        response_url: z.string(),
        trigger_id: z.string(),
      })
      .catchall(z.string()),
  },
  block_actions: {
    source: 'payload',
    schema: interaction('block_actions').extend({
      trigger_id: z.string(),
      actions: z
        .array(
          z.looseObject({
            ...Chosen,
            action_id: z.string(),
            block_id: z.string(),
            action_ts: z.string(),
          }),
        )
        .min(1),
      channel: Channel.optional(),
      view: View.optional(),
      state: State.optional(),
      response_url: z.string().optional(),
    }),
  },
  block_suggestion: {
    source: 'payload',
    schema: interaction('block_suggestion').extend({
      channel: Channel.optional(),
      action_id: z.string(),
      block_id: z.string(),
      value: z.string(),
    }),
  },
  view_submission: {
    source: 'payload',
    schema: interaction('view_submission').extend({ view: View }),
  },
  view_closed: { source: 'payload', schema: interaction('view_closed').extend({ view: View }) },
  shortcut: { source: 'payload', schema: interaction('shortcut').extend(Shortcut) },
  message_action: {
    source: 'payload',
    schema: interaction('message_action').extend({
      ...Shortcut,
      channel: Channel,
      message: z.looseObject({ ts: z.string(), text: z.string().optional() }),
      response_url: z.string(),
    }),
  },
  event_callback: {
    source: 'json',
    schema: EventCallback.superRefine((body, issues) => {
      const listened = EVENTS[body.event.type];
      if (listened && !listened.safeParse(body.event).success) {
        issues.addIssue({ code: 'custom', message: `a malformed ${body.event.type} event` });
      }
    }),
  },
  url_verification: {
    source: 'json',
    schema: z.looseObject({ type: z.literal('url_verification'), challenge: z.string() }),
  },
};

/** The interactions Bolt tells apart by their `type` alone. */
const PAYLOAD_TYPES: ReadonlySet<string> = new Set([
  'shortcut',
  'message_action',
  'view_submission',
  'view_closed',
]);

/**
 * The kind Bolt will take a body for, by the fields it looks at in its own order: the two it
 * answers itself (a certificate check, a URL verification), then getTypeAndConversation's
 * (an `event` makes an event whatever the type says, a `command` a command, and so on).
 */
export function routedKind(body: Record<string, unknown>): string | undefined {
  if (body.ssl_check === '1') return 'ssl_check';
  if (body.type === 'url_verification') return 'url_verification';
  if (body.event !== undefined) return 'event_callback';
  if (body.command !== undefined) return 'command';
  if (body.name !== undefined || body.type === 'block_suggestion') return 'block_suggestion';
  if (body.actions !== undefined || body.type === 'dialog_submission') return 'block_actions';
  const type = typeof body.type === 'string' ? body.type : undefined;
  return type !== undefined && PAYLOAD_TYPES.has(type) ? type : undefined;
}

/** A body's kind as Bolt will route it, and what is wrong with it for that kind, if anything. */
export interface Shape {
  kind: string | undefined;
  problem: string | undefined;
}

/** A body as Bolt parsed it (`source`: where its fields came from), against what Slack sends. */
export function shapeOf(body: unknown, source: BodySource): Shape {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { kind: undefined, problem: 'a body that is not an object' };
  }
  const kind = routedKind(Object.fromEntries(Object.entries(body)));
  const shape = kind === undefined ? undefined : SHAPES[kind];
  if (shape === undefined) return { kind, problem: 'no kind of request Slack sends' };
  if (shape.source !== source) return { kind, problem: `a ${kind} where Slack sends none` };
  const valid = shape.schema.safeParse(body).success;
  return { kind, problem: valid ? undefined : `a malformed ${kind}` };
}
