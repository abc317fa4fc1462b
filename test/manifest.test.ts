import { readFileSync } from 'node:fs';
import { Ajv, type AnySchemaObject, type ErrorObject, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SUBCOMMANDS } from '../src/features/index.ts';
import { DASHBOARD_DOMAIN } from '../src/features/unfurl.ts';
import { CALLBACKS, FUNCTIONS } from '../src/slack/ids.ts';

// Slack's own manifest schema (MIT, see test/fixtures/slack/manifest.schema.LICENSE). The main
// schema picks v1 or v2 by `_metadata.major_version` and refers to them by these addresses.
const SCHEMA_BASE = 'https://raw.githubusercontent.com/slackapi/manifest-schema/v0.5.0/schemas';
const fixture = (name: string) => new URL(`./fixtures/slack/${name}`, import.meta.url);

function readSchema(name: string): AnySchemaObject {
  const parsed: unknown = JSON.parse(readFileSync(fixture(name), 'utf8'));
  if (!isRecord(parsed)) throw new Error(`${name} is not a JSON object`);
  return parsed;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function compileManifestSchema(): ValidateFunction {
  // strict: false because Slack's schema uses keywords ajv does not know (`regex`, `_note`).
  // validateFormats: false because the only format it uses is `uri` (for `$schema`) and
  // ajv-formats is not a dependency; without this ajv would warn about an unknown format.
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  ajv.addSchema(
    readSchema('manifest.schema.1.0.0.json'),
    `${SCHEMA_BASE}/manifest.schema.1.0.0.json`,
  );
  ajv.addSchema(
    readSchema('manifest.schema.2.0.0.json'),
    `${SCHEMA_BASE}/manifest.schema.2.0.0.json`,
  );
  return ajv.compile(readSchema('manifest.schema.json'));
}

function loadManifest(): Record<string, unknown> {
  const parsed: unknown = parse(readFileSync(new URL('../manifest.yml', import.meta.url), 'utf8'));
  if (!isRecord(parsed)) throw new Error('manifest.yml is not a YAML mapping');
  return parsed;
}

function explain(errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    .join('\n');
}

function asRecord(value: unknown): Record<string, unknown> {
  if (!isRecord(value)) throw new Error(`${JSON.stringify(value)} is not a mapping`);
  return value;
}

/** Walks `path` through nested mappings; undefined when a step is missing. */
function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return current;
}

const validate = compileManifestSchema();

describe('manifest.yml', () => {
  it('is valid against Slack’s manifest schema', () => {
    const valid = validate(loadManifest());
    expect(explain(validate.errors)).toBe('');
    expect(valid).toBe(true);
  });

  it('targets manifest schema v2', () => {
    expect(at(loadManifest(), '_metadata', 'major_version')).toBe(2);
  });

  it('declares the /cometchat command, escaping off', () => {
    const commands = at(loadManifest(), 'features', 'slash_commands');
    expect(commands).toEqual([
      expect.objectContaining({
        command: '/cometchat',
        should_escape: false,
        usage_hint:
          '[app] roles · role (create | rename | describe | delete) <id> · compare (<role> (<role> | <app> <app>) | <guid> <scope> <app> <app>) · perms (<role> | <guid> <scope>) · approvals · user <uid> [can <action> | role <role> | contain] · users [text] · group <guid> [members | banned | scope <uid> <scope> | kick | ban | unban <uid>] · groups [text] · messages <uid> [filters] · moderation [message id] · rules [compare <app> <app> | promote <rule> <app>] · call <sessionId> · calls [uid] [filters] · subscribe (calls [filters] | recordings | transcripts | moderation | rules) · digest daily [HH:MM] · subscriptions · audit [role | export …] · apps · help',
      }),
    ]);
  });

  it('hints at every subcommand of the feature list (its first name)', () => {
    const [command] = at(loadManifest(), 'features', 'slash_commands') as { usage_hint: string }[];
    const hinted = (command?.usage_hint ?? '').split(/[ ·]+/);
    for (const sub of SUBCOMMANDS) {
      expect(hinted, `usage_hint in manifest.yml lacks ${sub.names[0]}`).toContain(sub.names[0]);
    }
  });

  it('declares the shortcuts with the callback ids the app listens to', () => {
    const shortcuts = at(loadManifest(), 'features', 'shortcuts');
    expect(shortcuts).toEqual([
      expect.objectContaining({ type: 'message', callback_id: CALLBACKS.lookupCallMessage }),
      expect.objectContaining({ type: 'global', callback_id: CALLBACKS.lookupCallGlobal }),
      expect.objectContaining({ type: 'message', callback_id: CALLBACKS.lookupUserMessage }),
      expect.objectContaining({ type: 'message', callback_id: CALLBACKS.lookupGroupMessage }),
    ]);
  });

  it('runs in Socket Mode with interactivity on and no token rotation', () => {
    const manifest = loadManifest();
    expect(at(manifest, 'settings')).toMatchObject({
      socket_mode_enabled: true,
      token_rotation_enabled: false,
      interactivity: { is_enabled: true },
    });
  });

  it('is org-ready and runs its own steps, as Slack requires of an app that offers steps', () => {
    expect(at(loadManifest(), 'settings')).toMatchObject({
      org_deploy_enabled: true,
      function_runtime: 'remote',
    });
  });

  it('declares a workflow step for each callback id the app listens to', () => {
    const functions = at(loadManifest(), 'functions');
    expect(Object.keys(isRecord(functions) ? functions : {}).sort()).toEqual(
      Object.values(FUNCTIONS).sort(),
    );
  });

  it("asks a change's step for the workflow's interactivity, and answers the outcome", () => {
    for (const id of [FUNCTIONS.changeUserRole, FUNCTIONS.changeUserAccount]) {
      const step = at(loadManifest(), 'functions', id);
      expect(at(step, 'input_parameters', 'properties', 'interactivity', 'type')).toBe(
        'slack#/types/interactivity',
      );
      expect(at(step, 'input_parameters', 'required')).toContain('interactivity');
      expect(Object.keys(asRecord(at(step, 'output_parameters', 'properties')))).toEqual([
        'outcome',
        'reference',
        'approver',
      ]);
    }
  });

  it("offers a lookup's step the workflow's interactivity, checked against VIEWERS when set", () => {
    for (const id of [FUNCTIONS.lookupUser, FUNCTIONS.lookupCall]) {
      const step = at(loadManifest(), 'functions', id);
      expect(at(step, 'input_parameters', 'properties', 'interactivity', 'type')).toBe(
        'slack#/types/interactivity',
      );
      expect(at(step, 'input_parameters', 'required')).not.toContain('interactivity');
    }
  });

  it('asks no step for a person by a user id its author could set', () => {
    const functions = asRecord(at(loadManifest(), 'functions'));
    for (const step of Object.values(functions)) {
      const inputs = Object.values(asRecord(at(step, 'input_parameters', 'properties')));
      expect(inputs.map((input) => at(input, 'type'))).not.toContain('slack#/types/user_id');
    }
  });

  it('asks for exactly the minimal bot scopes and no user scopes', () => {
    const scopes = at(loadManifest(), 'oauth_config', 'scopes');
    expect(at(scopes, 'user')).toBeUndefined();
    const bot = at(scopes, 'bot');
    expect(Array.isArray(bot) ? [...bot].sort() : bot).toEqual(
      [
        'channels:read',
        'chat:write',
        'commands',
        // The audit export's CSV file (files.uploadV2).
        'files:write',
        'groups:read',
        'im:write',
        'links:read',
        'links:write',
        'usergroups:read',
        'users:read',
      ].sort(),
    );
  });

  it('unfurls the dashboard links the app reads, and subscribes to them', () => {
    const manifest = loadManifest();
    expect(at(manifest, 'features', 'unfurl_domains')).toEqual([DASHBOARD_DOMAIN]);
    expect(at(manifest, 'settings', 'event_subscriptions', 'bot_events')).toContain('link_shared');
  });

  it('has a hex background colour (the schema says so with `regex`, which ajv ignores)', () => {
    expect(at(loadManifest(), 'display_information', 'background_color')).toMatch(
      /^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$/,
    );
  });

  // Dropping `_metadata` is not a negative case: the main schema then validates against v1,
  // which this manifest also satisfies. These cases fail under every branch of the schema.
  describe('the validator can fail', () => {
    it('rejects a request URL that does not start with http(s)://', () => {
      const manifest = loadManifest();
      const settings = at(manifest, 'settings');
      const broken = {
        ...manifest,
        settings: isRecord(settings)
          ? { ...settings, interactivity: { is_enabled: true, request_url: 'example.invalid/x' } }
          : settings,
      };
      expect(validate(broken)).toBe(false);
      expect(explain(validate.errors)).toContain('/settings/interactivity/request_url');
    });

    it('rejects an unknown manifest major version', () => {
      const manifest = { ...loadManifest(), _metadata: { major_version: 3 } };
      expect(validate(manifest)).toBe(false);
    });

    it('rejects a workflow step without its output parameters', () => {
      const manifest = loadManifest();
      const functions = asRecord(manifest.functions);
      const { output_parameters: _, ...step } = asRecord(functions[FUNCTIONS.lookupUser]);
      const broken = { ...manifest, functions: { ...functions, [FUNCTIONS.lookupUser]: step } };
      expect(validate(broken)).toBe(false);
      expect(explain(validate.errors)).toContain('output_parameters');
    });

    it('rejects a workflow step parameter of a type Slack does not have', () => {
      const manifest = loadManifest();
      const functions = asRecord(manifest.functions);
      const step = asRecord(functions[FUNCTIONS.lookupCall]);
      const broken = {
        ...manifest,
        functions: {
          ...functions,
          [FUNCTIONS.lookupCall]: {
            ...step,
            input_parameters: { properties: { session_id: { type: 'session' } } },
          },
        },
      };
      expect(validate(broken)).toBe(false);
    });

    it('rejects a manifest without display_information', () => {
      const { display_information: _, ...manifest } = loadManifest();
      expect(validate(manifest)).toBe(false);
      expect(explain(validate.errors)).toContain('display_information');
    });
  });
});
