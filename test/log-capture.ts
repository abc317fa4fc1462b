import { Writable } from 'node:stream';

/**
 * A log line as a pipeline indexes it: the Elastic Common Schema's dotted keys made objects
 * (`"log.level"` is `log.level`), the app's own fields under `cometchat_ops` (there, empty,
 * when the line has none of them).
 */
export interface LogRecord {
  '@timestamp': string;
  message: string;
  log: { level: string; logger?: string };
  ecs: { version: string };
  service: { name: string };
  user?: { id?: string };
  organization?: { id?: string };
  error?: { type?: string; message?: string; stack_trace?: string; code?: string };
  cometchat_ops: Record<string, unknown>;
  [field: string]: unknown;
}

/** Every log line written to it, as text and parsed: a destination for a real pino logger. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) if (line) this.lines.push(line);
    done();
  }
  records(): LogRecord[] {
    return this.lines.map(recordOf);
  }
  /** The lines logged at error level or above. */
  errors(): LogRecord[] {
    return this.records().filter((r) => r.log.level === 'error' || r.log.level === 'fatal');
  }
  text(): string {
    return this.lines.join('\n');
  }
}

export function recordOf(line: string): LogRecord {
  const document = documentOf(JSON.parse(line) as Record<string, unknown>, line);
  return { cometchat_ops: {}, ...document } as LogRecord;
}

/** The document as Elasticsearch reads it: `a.b` is `b` inside `a`. A clash throws. */
export function documentOf(flat: Record<string, unknown>, line: string): Record<string, unknown> {
  const document: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(flat)) {
    const path = key.split('.');
    const last = path.pop() ?? key;
    let at = document;
    for (const step of path) {
      const next = at[step] ?? {};
      if (!isObject(next)) throw new Error(`"${key}" sits under a value, not an object: ${line}`);
      at[step] = next;
      at = next;
    }
    const before = at[last];
    if (before !== undefined && !(isObject(before) && isObject(value))) {
      throw new Error(`"${key}" is written twice: ${line}`);
    }
    at[last] = isObject(before) ? { ...before, ...(value as object) } : value;
  }
  return document;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
