import { expect } from 'vitest';
import { documentOf } from './log-capture.ts';

// What a log pipeline that reads the Elastic Common Schema (ECS) checks of a line: the fields
// ecs-logging requires (https://github.com/elastic/ecs-logging, spec/spec.json), and a document
// Elasticsearch can index, where `a.b` and `{ "a": { "b" } }` name the same field.

/** ECS's field sets (ECS 8.x): objects in a document, never a value of their own. */
const ECS_FIELD_SETS = new Set([
  'agent',
  'as',
  'client',
  'cloud',
  'code_signature',
  'container',
  'data_stream',
  'destination',
  'device',
  'dll',
  'dns',
  'ecs',
  'elf',
  'email',
  'error',
  'event',
  'faas',
  'file',
  'geo',
  'group',
  'hash',
  'host',
  'http',
  'interface',
  'log',
  'macho',
  'network',
  'observer',
  'orchestrator',
  'organization',
  'os',
  'package',
  'pe',
  'process',
  'registry',
  'related',
  'risk',
  'rule',
  'server',
  'service',
  'source',
  'span',
  'threat',
  'tls',
  'trace',
  'transaction',
  'url',
  'user',
  'user_agent',
  'vlan',
  'volume',
  'vulnerability',
  'x509',
]);
/** ECS's base fields, at the top of a document. */
const ECS_BASE_FIELDS = new Set(['@timestamp', 'message', 'labels', 'tags']);
/** Where the app's own fields are. */
export const OWN_NAMESPACE = 'cometchat_ops';

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
const ISO_8601 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/**
 * Checks one written line against the ECS rules the app relies on, and returns it as the
 * document a pipeline indexes (dotted keys made objects).
 */
export function expectEcsLine(line: string): Record<string, unknown> {
  expect(duplicateKeys(line), line).toEqual([]);
  const flat = JSON.parse(line) as Record<string, unknown>;
  // ecs-logging: these four on every line, `log.level` as a dotted key at the top.
  expect(flat['log.level'], line).toSatisfy((v) => typeof v === 'string' && LEVELS.has(v));
  expect(flat['@timestamp'], line).toMatch(ISO_8601);
  expect(Number.isNaN(Date.parse(String(flat['@timestamp']))), line).toBe(false);
  expect(flat.message, line).toBeTypeOf('string');
  expect(flat['ecs.version'], line).toMatch(/^\d+\.\d+\.\d+$/);
  expect(flat['service.name'], line).toBe('cometchat-slack-ops');

  const document = documentOf(flat, line);
  for (const [name, value] of Object.entries(document)) {
    const known = ECS_FIELD_SETS.has(name) || ECS_BASE_FIELDS.has(name) || name === OWN_NAMESPACE;
    expect(known, `"${name}" is neither ECS's nor under ${OWN_NAMESPACE}: ${line}`).toBe(true);
    if (ECS_FIELD_SETS.has(name) || name === OWN_NAMESPACE) {
      expect(isObject(value), `"${name}" must be an object: ${line}`).toBe(true);
    }
  }
  const error = document.error as Record<string, unknown> | undefined;
  for (const field of ['type', 'message', 'stack_trace', 'code']) {
    if (error?.[field] !== undefined) expect(error[field], line).toBeTypeOf('string');
  }
  for (const [set, field] of [
    ['user', 'id'],
    ['organization', 'id'],
    ['log', 'logger'],
  ] as const) {
    const value = (document[set] as Record<string, unknown> | undefined)?.[field];
    if (value !== undefined) expect(value, `${set}.${field}: ${line}`).toBeTypeOf('string');
  }
  return document;
}

/** Keys of the line's top-level object written more than once (JSON.parse keeps the last). */
export function duplicateKeys(line: string): string[] {
  const seen = new Set<string>();
  const twice: string[] = [];
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i];
    if (c === '"') {
      let end = i + 1;
      while (line[end] !== '"') end += line[end] === '\\' ? 2 : 1;
      if (depth === 1 && expectKey) {
        const key = JSON.parse(line.slice(i, end + 1)) as string;
        if (seen.has(key)) twice.push(key);
        seen.add(key);
      }
      i = end;
    } else if (c === '{' || c === '[') {
      depth += 1;
      expectKey = c === '{';
    } else if (c === '}' || c === ']') {
      depth -= 1;
    } else if (c === ',' && depth === 1) {
      expectKey = true;
    } else if (c === ':') {
      expectKey = false;
    }
  }
  return twice;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
