import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signSlackRequest } from '../../offline/slack-standin/driver.ts';
import { ACTIONS, CALLBACKS } from '../../src/slack/ids.ts';
import type { Harness } from './harness.ts';
import { useSharedHarness } from './support.ts';

// Randomly shaped bodies of every kind Slack sends, each signed with the app's secret and sent
// to the real app over HTTP. A body of a shape Slack sends (whatever its strings, ids and extra
// fields) is answered 2xx; one changed away from every shape Slack sends (a field dropped,
// given twice or of another type, a field that makes Bolt take it for another kind, the wrong
// encoding) is answered 4xx. Every answer comes within Slack's three seconds, and nothing is
// logged as unhandled or unacknowledged.
//
// The shapes are written here from Slack's payload reference, apart from the app's own
// (src/slack/payload-shapes.ts), so that the two are checked against each other.

type Json = unknown;
type Path = readonly (string | number)[];
type Body = Record<string, Json>;

/** How a kind travels: a form's fields, a form's `payload` field (JSON), or a JSON body. */
type Source = 'form' | 'payload' | 'json';

/** What a field holds in every body Slack sends, for choosing a value it never holds. */
type Holds =
  | 'kind'
  | 'string'
  | 'nullable string'
  | 'object'
  | 'nullable object'
  | 'string or object'
  | 'array'
  | 'objects';

interface Field {
  path: Path;
  holds: Holds;
  /** Slack always sends it (else only its type is sure, when present). */
  required: boolean;
}

const field = (holds: Holds, ...path: Path): Field => ({ path, holds, required: true });
const optional = (holds: Holds, ...path: Path): Field => ({ path, holds, required: false });

const ACTOR: Field[] = [
  field('kind', 'type'),
  field('object', 'user'),
  field('string', 'user', 'id'),
  field('nullable object', 'team'),
  field('string', 'team', 'id'),
  optional('objects', 'response_urls'),
];
/** A state value at `b0.a0`, when there is one (the values are a record: none is required). */
const STATE_VALUE: Field[] = [
  optional('object', 'b0'),
  optional('object', 'b0', 'a0'),
  field('string', 'b0', 'a0', 'type'),
  optional('nullable string', 'b0', 'a0', 'value'),
  optional('nullable object', 'b0', 'a0', 'selected_option'),
  optional('string', 'b0', 'a0', 'selected_option', 'value'),
  optional('array', 'b0', 'a0', 'selected_options'),
];
const VIEW: Field[] = [
  field('object', 'view'),
  field('string', 'view', 'id'),
  field('string', 'view', 'type'),
  field('string', 'view', 'callback_id'),
  field('string', 'view', 'private_metadata'),
  optional('string', 'view', 'hash'),
  field('object', 'view', 'state'),
  field('object', 'view', 'state', 'values'),
  ...STATE_VALUE.map((f) => ({ ...f, path: ['view', 'state', 'values', ...f.path] })),
];
const SHORTCUT: Field[] = [...ACTOR, field('string', 'callback_id'), field('string', 'trigger_id')];

/** Each kind: how it travels, its fields, and the fields Bolt looks at before its own. */
interface Kind {
  source: Source;
  fields: Field[];
  /** Added, each makes Bolt route the body as another kind (getTypeAndConversation's order). */
  before: readonly string[];
}

const KINDS: Record<string, Kind> = {
  command: {
    source: 'form',
    fields: [
      'command',
      'text',
      'team_id',
      'channel_id',
      'user_id',
      'response_url',
      'trigger_id',
    ].map((name) => field('string', name)),
    before: ['ssl_check', 'type', 'event'],
  },
  block_actions: {
    source: 'payload',
    fields: [
      ...ACTOR,
      field('string', 'trigger_id'),
      field('array', 'actions'),
      field('object', 'actions', 0),
      field('string', 'actions', 0, 'type'),
      field('string', 'actions', 0, 'action_id'),
      field('string', 'actions', 0, 'block_id'),
      field('string', 'actions', 0, 'action_ts'),
      optional('nullable string', 'actions', 0, 'value'),
      optional('nullable object', 'actions', 0, 'selected_option'),
      // A field inside an optional one is required when that one is there.
      optional('object', 'channel'),
      field('string', 'channel', 'id'),
      optional('string', 'response_url'),
      optional('object', 'state'),
      field('object', 'state', 'values'),
      optional('object', 'view'),
      ...VIEW.slice(1),
    ],
    before: ['ssl_check', 'event', 'command', 'name'],
  },
  block_suggestion: {
    source: 'payload',
    fields: [
      ...ACTOR,
      field('string', 'action_id'),
      field('string', 'block_id'),
      field('string', 'value'),
    ],
    before: ['ssl_check', 'event', 'command'],
  },
  view_submission: {
    source: 'payload',
    fields: [...ACTOR, ...VIEW],
    before: ['ssl_check', 'event', 'command', 'name', 'actions'],
  },
  view_closed: {
    source: 'payload',
    fields: [...ACTOR, ...VIEW],
    before: ['ssl_check', 'event', 'command', 'name', 'actions'],
  },
  shortcut: {
    source: 'payload',
    fields: SHORTCUT,
    before: ['ssl_check', 'event', 'command', 'name', 'actions'],
  },
  message_action: {
    source: 'payload',
    fields: [
      ...SHORTCUT,
      field('object', 'channel'),
      field('string', 'channel', 'id'),
      field('object', 'message'),
      field('string', 'message', 'ts'),
      optional('string', 'message', 'text'),
      field('string', 'response_url'),
    ],
    before: ['ssl_check', 'event', 'command', 'name', 'actions'],
  },
  event_callback: {
    source: 'json',
    fields: [
      field('kind', 'type'),
      field('string', 'team_id'),
      field('object', 'event'),
      field('string', 'event', 'type'),
      optional('string or object', 'event', 'user'),
      optional('string or object', 'event', 'channel'),
      optional('array', 'authorizations'),
      optional('object', 'authorizations', 0),
    ],
    before: ['ssl_check'],
  },
  url_verification: {
    source: 'json',
    fields: [field('string', 'challenge')],
    before: ['ssl_check'],
  },
};

/**
 * What the two events the app listens to always carry, beside every event's fields, and a
 * workflow step's, whose execution id Bolt reads.
 */
const LISTENED: Record<string, Field[]> = {
  function_executed: [
    field('object', 'event', 'function'),
    field('string', 'event', 'function', 'callback_id'),
    field('string', 'event', 'function_execution_id'),
  ],
  app_home_opened: [field('string', 'event', 'user'), optional('string', 'event', 'tab')],
  link_shared: [
    field('string', 'event', 'user'),
    field('string', 'event', 'channel'),
    field('string', 'event', 'message_ts'),
    field('array', 'event', 'links'),
  ],
};

// ---------------------------------------------------------------------------------------------
// Values

const text = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.string({ maxLength: 12, unit: 'binary' }),
  fc.constantFrom('', ' ', 'roles', 'help', 'call', 'prod roles', '{"page":2}', 'é👨‍👩‍👧'),
);
const json: fc.Arbitrary<Json> = fc.jsonValue({ maxDepth: 2 });
/** Fields Slack may add: named so that none is one Bolt or the app reads. */
const extras = fc.dictionary(
  fc.string({ maxLength: 8 }).map((name) => `x_${name}`),
  json,
  { maxKeys: 3 },
);
const actionId = fc.oneof(
  fc.constantFrom(
    ...Object.values(ACTIONS),
    `${ACTIONS.rolesPage}_next`,
    `${ACTIONS.promoteChange}:default`,
  ),
  text,
);
const callbackId = fc.oneof(fc.constantFrom(...Object.values(CALLBACKS)), text);
const option = fc.record({ value: text, text: fc.constant({ type: 'plain_text', text: 'x' }) });
/** A state value as Slack sends one, by element type. */
const stateValue = fc.oneof(
  fc.record({ type: fc.constant('plain_text_input'), value: fc.option(text) }),
  fc.record({ type: fc.constant('static_select'), selected_option: fc.option(option) }),
  fc.record({
    type: fc.constantFrom('checkboxes', 'multi_static_select'),
    selected_options: fc.array(option, { maxLength: 2 }),
  }),
);
const stateValues = fc.oneof(
  fc.constant({}),
  stateValue.map((value) => ({ b0: { a0: value } })),
  fc.dictionary(text, fc.dictionary(text, stateValue, { maxKeys: 2 }), { maxKeys: 2 }),
);
const view = fc.record({
  id: text.map((id) => `V${id}`),
  type: fc.constantFrom('modal', 'home'),
  callback_id: callbackId,
  private_metadata: text,
  hash: text,
  blocks: fc.constant([]),
  state: stateValues.map((values) => ({ values })),
});

/** A value a field holding `holds` never holds in what Slack sends. */
function notHeld(holds: Holds): fc.Arbitrary<Json> {
  const scalar = fc.oneof(fc.integer(), fc.boolean(), fc.double({ noNaN: true }));
  const list = fc.array(fc.integer(), { maxLength: 2 });
  const record = fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 });
  const nil = fc.constant(null);
  switch (holds) {
    case 'kind':
      return fc.oneof(
        scalar,
        nil,
        fc.string({ maxLength: 8 }).map((t) => `x_${t}`),
      );
    case 'string':
      return fc.oneof(scalar, nil, list, record);
    case 'nullable string':
      return fc.oneof(scalar, list, record);
    case 'object':
      return fc.oneof(scalar, nil, list, fc.string({ maxLength: 8 }));
    case 'nullable object':
      return fc.oneof(scalar, list, fc.string({ maxLength: 8 }));
    case 'string or object':
      return fc.oneof(scalar, nil, list);
    case 'array':
      return fc.oneof(scalar, nil, record, fc.string({ maxLength: 8 }));
    case 'objects':
      return fc.oneof(scalar, nil, fc.constant([null]), fc.constant([3]));
  }
}

const HOLDS: readonly Holds[] = [
  'kind',
  'string',
  'nullable string',
  'object',
  'nullable object',
  'string or object',
  'array',
  'objects',
];
const wrongValues = fc.record(
  Object.fromEntries(HOLDS.map((holds) => [holds, notHeld(holds)])) as Record<
    Holds,
    fc.Arbitrary<Json>
  >,
);

// ---------------------------------------------------------------------------------------------
// Changes away from every shape Slack sends

type Change =
  | { how: 'drop' | 'retype'; pick: number; wrong: Record<Holds, Json> }
  | { how: 'before'; pick: number; value: Json }
  | { how: 'twice'; pick: number }
  | { how: 'encoding'; pick: number; junk: string }
  | { how: 'noise'; fields: Body };

/** Every field a kind requires or Bolt routes by: random fields named none of these are junk. */
const MEANINGFUL = new Set(
  Object.values(KINDS).flatMap((kind) => [
    ...kind.before,
    ...kind.fields.map((f) => `${f.path[0]}`),
  ]),
);

const pick = fc.nat();
const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ how: fc.constantFrom('drop', 'retype'), pick, wrong: wrongValues }),
  fc.record({ how: fc.constant('before'), pick, value: json.filter((v) => v !== undefined) }),
  fc.record({ how: fc.constant('twice'), pick }),
  fc.record({
    how: fc.constant('encoding'),
    pick,
    junk: fc.oneof(
      fc.constantFrom('null', '42', '"text"', '[]', '[{}]', '{not json', ''),
      json
        .filter((v) => typeof v !== 'object' || v === null || Array.isArray(v))
        .map((v) => JSON.stringify(v)),
    ),
  }),
  fc.record({
    how: fc.constant('noise'),
    fields: fc
      .dictionary(fc.string({ maxLength: 10 }), json, { maxKeys: 6 })
      .filter((fields) => Object.keys(fields).every((name) => !MEANINGFUL.has(name))),
  }),
);
/** Most cases are changed; about a third are sent as Slack would send them. */
const maybeChange = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: change },
);

function has(body: Json, path: Path): boolean {
  let at: Json = body;
  for (const step of path) {
    if (typeof at !== 'object' || at === null || !(step in at)) return false;
    at = (at as Record<string | number, Json>)[step];
  }
  return true;
}

const DROP = Symbol('drop');

function withValue(body: Body, path: Path, value: Json | typeof DROP): Body {
  const copy = structuredClone(body);
  let at = copy as Record<string | number, Json>;
  for (const step of path.slice(0, -1)) at = at[step] as Record<string | number, Json>;
  const last = path[path.length - 1] as string | number;
  if (value === DROP) {
    if (Array.isArray(at) && typeof last === 'number') at.splice(last, 1);
    else delete at[last];
  } else at[last] = value;
  return copy;
}

const FORM = 'application/x-www-form-urlencoded';

/** Fields every body has the same, left out of a failure's message. */
const SAME = new Set([
  'user',
  'team',
  'token',
  'trigger_id',
  'api_app_id',
  'response_url',
  'enterprise',
]);
const brief = (body: Body) =>
  JSON.stringify(body, (key, value: Json) => (SAME.has(key) ? undefined : value)).slice(0, 400);

interface Sent {
  body: string;
  contentType: string;
  /** Slack sends bodies of this shape. */
  valid: boolean;
  /** What was sent, for a failure's message. */
  what: string;
}

function encode(source: Source, body: Body): { body: string; contentType: string } {
  if (source === 'json') return { body: JSON.stringify(body), contentType: 'application/json' };
  if (source === 'payload') {
    return {
      body: new URLSearchParams({ payload: JSON.stringify(body) }).toString(),
      contentType: FORM,
    };
  }
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(body)) {
    for (const one of Array.isArray(value) ? value : [value]) form.append(name, String(one));
  }
  return { body: form.toString(), contentType: FORM };
}

/** The body as Slack would send it, or changed by `change` away from every shape Slack sends. */
function sentBody(kindName: string, body: Body, change: Change | undefined): Sent {
  const kind = KINDS[kindName] as Kind;
  const event = (body.event as { type?: unknown } | undefined)?.type;
  const fields = [...kind.fields, ...(LISTENED[String(event)] ?? [])].filter((f) =>
    has(body, f.path),
  );
  const what = (detail: string) => `${kindName} ${detail}`;
  const as = (changed: Body, detail: string, valid = false): Sent => ({
    ...encode(kind.source, changed),
    valid,
    what: what(detail),
  });
  if (change === undefined) return as(body, brief(body), true);
  switch (change.how) {
    case 'drop': {
      const required = fields.filter((f) => f.required);
      const f = required[change.pick % required.length];
      if (f) return as(withValue(body, f.path, DROP), `without ${f.path.join('.')}`);
      return sentBody(kindName, body, { ...change, how: 'retype' });
    }
    case 'retype': {
      // A form's fields are all strings: a command's fields change by being dropped or doubled.
      if (kind.source === 'form')
        return sentBody(kindName, body, { how: 'twice', pick: change.pick });
      const f = fields[change.pick % fields.length] as Field;
      const wrong = change.wrong[f.holds];
      return as(
        withValue(body, f.path, wrong),
        `with ${f.path.join('.')}=${JSON.stringify(wrong)}`,
      );
    }
    case 'before': {
      const name = kind.before[change.pick % kind.before.length] as string;
      // Bolt answers a certificate check for `ssl_check` of "1" alone, and a URL verification
      // for that type alone; a form's fields are strings.
      const value =
        name === 'ssl_check'
          ? '1'
          : name === 'type'
            ? 'url_verification'
            : kind.source === 'form'
              ? JSON.stringify(change.value)
              : change.value;
      return as({ ...body, [name]: value }, `with ${name}=${JSON.stringify(value)}`);
    }
    case 'twice': {
      if (kind.source === 'json')
        return sentBody(kindName, body, { how: 'encoding', pick: change.pick, junk: '' });
      if (kind.source === 'payload') {
        const once = encode('payload', body).body;
        return {
          body: `${once}&${once}`,
          contentType: FORM,
          valid: false,
          what: what('payload twice'),
        };
      }
      const names = Object.keys(body);
      const name = names[change.pick % names.length] as string;
      return as({ ...body, [name]: [body[name], body[name]] }, `with ${name} twice`);
    }
    case 'encoding':
      return badlyEncoded(kindName, kind.source, body, change);
    case 'noise': {
      // What names the kind stays; the rest is random.
      const named = Object.fromEntries(
        Object.entries(body).filter(([k]) => k === 'type' || k === 'command'),
      );
      const noise = kind.source === 'form' ? stringsOf(change.fields) : change.fields;
      return as({ ...noise, ...named }, `of random fields ${JSON.stringify(noise)}`);
    }
  }
}

function stringsOf(fields: Body): Body {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, JSON.stringify(v)]));
}

/** The right fields in the wrong wrapping: another encoding, a content type Bolt reads as JSON. */
function badlyEncoded(
  kindName: string,
  source: Source,
  body: Body,
  change: { pick: number; junk: string },
): Sent {
  const what = (detail: string) => `${kindName} ${detail}`;
  const choices: (() => Sent)[] = [
    // Another kind's encoding.
    () =>
      source === 'json'
        ? { ...encode('payload', body), valid: false, what: what('as a form payload') }
        : { ...encode('json', body), valid: false, what: what('as JSON') },
    // Not an object where Slack sends one.
    () =>
      source === 'form'
        ? {
            body: change.junk,
            contentType: 'application/json',
            valid: false,
            what: what(`as ${change.junk}`),
          }
        : source === 'payload'
          ? {
              body: new URLSearchParams({ payload: change.junk }).toString(),
              contentType: FORM,
              valid: false,
              what: what(`payload ${change.junk}`),
            }
          : {
              body: change.junk,
              contentType: 'application/json',
              valid: false,
              what: what(`as ${change.junk}`),
            },
    // A form under a content type Bolt reads as JSON (it compares the type exactly).
    () => ({
      ...encode(source === 'json' ? 'payload' : source, body),
      contentType: `${FORM}; charset=utf-8`,
      valid: false,
      what: what('with a charset'),
    }),
  ];
  return (choices[change.pick % choices.length] as () => Sent)();
}

// ---------------------------------------------------------------------------------------------
// Bodies as Slack sends them, built by the stand-in's driver at send time (it mints the
// trigger ids and response_urls the stand-in honours), with random strings, ids and extras

type Build = (h: Harness) => Body;

const OTHER_TEAM = 'T0ELSEWHERE';
/** The workspace's own team, another one (refused, still answered), or none (org-wide). */
const team = fc.constantFrom<'own' | 'other' | 'none'>('own', 'own', 'own', 'other', 'none');
function withTeam(body: Body, which: 'own' | 'other' | 'none'): Body {
  if (which === 'own') return body;
  return { ...body, team: which === 'none' ? null : { id: OTHER_TEAM, domain: 'elsewhere' } };
}

const command: fc.Arbitrary<Build> = fc
  .record({
    text,
    name: fc.constantFrom('/cometchat', '/cometchat', '/other'),
    other: fc.boolean(),
    extras,
  })
  .map((p) => (h) => ({
    ...stringsOf(p.extras),
    ...h.driver.commandFields(p.text, {
      command: p.name,
      ...(p.other ? { team_id: OTHER_TEAM } : {}),
    }),
  }));

const blockActions: fc.Arbitrary<Build> = fc
  .record({
    actionId,
    element: fc.constantFrom('button', 'select', 'cleared select'),
    value: text,
    option,
    inView: fc.boolean(),
    view,
    team,
    extras,
  })
  .map((p) => (h) => {
    const action = h.driver.blockAction({
      actionId: p.actionId,
      ...(p.element === 'button'
        ? { value: p.value }
        : { selectedOption: { value: p.option.value } }),
      ...(p.inView ? { view: p.view } : {}),
    });
    if (p.element === 'cleared select') {
      const [first] = action.actions as Body[];
      action.actions = [{ ...first, selected_option: null }];
    }
    return { ...p.extras, ...withTeam(action, p.team) };
  });

const viewPayload = (type: 'view_submission' | 'view_closed'): fc.Arbitrary<Build> =>
  fc.record({ view, team, extras, cleared: fc.boolean() }).map((p) => (h) => ({
    ...p.extras,
    ...withTeam(h.driver.viewSubmission({ view: p.view, values: p.view.state.values }), p.team),
    type,
    ...(type === 'view_closed' ? { is_cleared: p.cleared } : {}),
  }));

const shortcut: fc.Arbitrary<Build> = fc.record({ callbackId, team, extras }).map((p) => (h) => ({
  ...p.extras,
  ...withTeam(h.driver.globalShortcut({ callbackId: p.callbackId }), p.team),
}));

const messageAction: fc.Arbitrary<Build> = fc
  .record({ callbackId, message: text, team, extras })
  .map((p) => (h) => ({
    ...p.extras,
    ...withTeam(
      h.driver.messageShortcut({
        callbackId: p.callbackId,
        message: { text: p.message, ts: '1700000000.000100' },
      }),
      p.team,
    ),
  }));

const blockSuggestion: fc.Arbitrary<Build> = fc
  .record({ actionId, value: text, team, extras })
  .map((p) => (h) => {
    const {
      user,
      team: own,
      api_app_id,
      token,
      container,
    } = h.driver.blockAction({
      actionId: p.actionId,
    });
    const body = { type: 'block_suggestion', user, team: own, api_app_id, token, container };
    return {
      ...p.extras,
      ...withTeam({ ...body, action_id: p.actionId, block_id: 'b0', value: p.value }, p.team),
    };
  });

/** The app's two events, and others Slack may send (Bolt acknowledges those itself). */
const event: fc.Arbitrary<(h: Harness) => Body> = fc.oneof(
  fc
    .constantFrom('home', 'messages')
    .map((tab) => (h: Harness) => ({ ...h.driver.homeOpened(), tab })),
  fc
    .array(fc.oneof(fc.webUrl(), fc.constant('https://app.cometchat.com/apps/x/roles')), {
      minLength: 1,
      maxLength: 3,
    })
    .map((urls) => (h: Harness) => h.driver.linkShared(urls)),
  fc
    .record({
      type: fc.oneof(
        fc.constantFrom('reaction_added', 'member_joined_channel', 'message', 'function_executed'),
        text.map((t) => `x_${t}`),
      ),
      user: fc.option(fc.constant('U0OPERATOR'), { nil: undefined }),
      channel: fc.option(fc.constant('C0OPS'), { nil: undefined }),
      extras,
    })
    .map((p) => () => ({
      ...p.extras,
      type: p.type,
      // Another app's step: Bolt routes it to no listener of this app.
      ...(p.type === 'function_executed'
        ? { function: { callback_id: 'another_apps_step' }, function_execution_id: 'Fx0001' }
        : {}),
      ...(p.user ? { user: p.user } : {}),
      ...(p.channel ? { channel: p.channel } : {}),
    })),
);
const eventCallback: fc.Arbitrary<Build> = fc
  .record({ event, other: fc.boolean(), extras })
  .map((p) => (h) => ({
    ...p.extras,
    ...h.driver.eventBody(p.event(h)),
    ...(p.other ? { team_id: OTHER_TEAM } : {}),
  }));

const urlVerification: fc.Arbitrary<Build> = fc
  .record({ challenge: text, extras })
  .map((p) => () => ({
    ...p.extras,
    token: 'standin-verification-token',
    challenge: p.challenge,
    type: 'url_verification',
  }));

// ---------------------------------------------------------------------------------------------
// The property

/** Slack gives up on an answer after three seconds. */
const SLACK_DEADLINE_MS = 3_000;

async function send(h: Harness, sent: Sent) {
  const headers = {
    ...signSlackRequest(h.config.slack.signingSecret ?? '', sent.body),
    'content-type': sent.contentType,
  };
  return h.driver.raw(sent.body, headers);
}

/** Waits until the app has logged nothing for a while: listeners go on after their answer. */
async function quiet(h: Harness): Promise<void> {
  let seen = -1;
  for (let round = 0; round < 40 && seen !== h.logs.lines.length; round++) {
    seen = h.logs.lines.length;
    await sleep(300);
  }
}

/** Lines that say a request was not handled: any error, and Bolt's unacknowledged warning. */
function unhandledLines(h: Harness): string[] {
  return h.logs
    .records()
    .filter(
      (r) =>
        r.log.level === 'error' ||
        r.log.level === 'fatal' ||
        /not acknowledged|unhandled/i.test(r.message),
    )
    .map((r) => `${r.log.level} ${r.message} ${r.error?.message ?? ''}`);
}

describe('signed bodies of every shape', () => {
  const h = useSharedHarness({}, { resetAfterEach: true });

  const property = (kindName: string, build: fc.Arbitrary<Build>, numRuns: number) =>
    it(`${kindName}: answered in time, 2xx exactly when Slack sends its shape, nothing unhandled`, async () => {
      await fc.assert(
        fc.asyncProperty(build, maybeChange, async (make, changed) => {
          const sent = sentBody(kindName, make(h), changed);
          const answer = await send(h, sent);
          expect(answer.elapsedMs, sent.what).toBeLessThan(SLACK_DEADLINE_MS);
          const expected = sent.valid ? [200, 299] : [400, 499];
          expect(answer.status, `${answer.status} for ${sent.what}`).toBeGreaterThanOrEqual(
            expected[0] as number,
          );
          expect(answer.status, `${answer.status} for ${sent.what}`).toBeLessThanOrEqual(
            expected[1] as number,
          );
        }),
        { numRuns },
      );
      await quiet(h);
      expect(unhandledLines(h)).toEqual([]);
    }, 60_000);

  it("refuses at once the issue's example, a command whose text comes twice", async () => {
    const fields = new URLSearchParams({ ...h.driver.commandFields('roles') });
    fields.append('text', 'roles');
    const answer = await send(h, {
      body: fields.toString(),
      contentType: FORM,
      valid: false,
      what: 'text twice',
    });
    expect(answer.status).toBe(400);
    expect(answer.elapsedMs).toBeLessThan(SLACK_DEADLINE_MS);
    await quiet(h);
    expect(unhandledLines(h)).toEqual([]);
    expect(h.sandbox.requests).toEqual([]);
  });

  property('command', command, 60);
  property('block_actions', blockActions, 60);
  property('view_submission', viewPayload('view_submission'), 40);
  property('view_closed', viewPayload('view_closed'), 25);
  property('shortcut', shortcut, 25);
  property('message_action', messageAction, 25);
  property('block_suggestion', blockSuggestion, 25);
  property('event_callback', eventCallback, 50);
  property('url_verification', urlVerification, 15);
});
