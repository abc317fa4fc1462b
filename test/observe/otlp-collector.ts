import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// An OpenTelemetry collector stood in for: it takes OTLP/HTTP (JSON) exports, as tracing.ts
// sends them, and keeps what they carried.

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
}
export interface OtlpAttribute {
  key: string;
  value: Record<string, unknown>;
}
export interface OtlpResource {
  attributes?: OtlpAttribute[];
}

/** A collector: keeps the spans of every export it is sent, their resources, and the headers. */
export async function startCollector() {
  const spans: OtlpSpan[] = [];
  const resources: OtlpResource[] = [];
  const authorizations: (string | undefined)[] = [];
  const server: Server = createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: { resource: OtlpResource; scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      for (const rs of body.resourceSpans) {
        resources.push(rs.resource);
        for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    resources,
    authorizations,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An attribute's value, whatever its OTLP type (`stringValue`, `intValue`, ...). */
export function attributeOf(attributes: OtlpAttribute[] | undefined, key: string): unknown {
  const value = attributes?.find((a) => a.key === key)?.value;
  return value ? Object.values(value)[0] : undefined;
}
