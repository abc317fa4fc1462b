/** What a route answers, before the HTTP layer adds transport headers. */
export interface SandboxResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export function ok(body: unknown): SandboxResponse {
  return { status: 200, body };
}
