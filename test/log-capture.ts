import { Writable } from 'node:stream';

/** Every log line written to it, as text and parsed: a destination for a real pino logger. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) if (line) this.lines.push(line);
    done();
  }
  records(): Record<string, unknown>[] {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }
  text(): string {
    return this.lines.join('\n');
  }
}
