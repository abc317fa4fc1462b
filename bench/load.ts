import { Agent, request } from 'node:http';
import autocannon from 'autocannon';
import { wallNow } from './stats.ts';

// Two ways of loading a subject.
//
// Fixed rate (latency): an open-loop generator written here. autocannon's rate option releases
// each second's quota as a burst at the start of the second and records whole milliseconds,
// which at 1-3 ms latencies would measure its own bursts and rounding. This one sends request i
// at start + i/rate whatever the answers do, and times each with performance.now().
//
// Saturation (throughput): autocannon, closed loop, N connections each sending the next request
// as soon as the previous one is answered.

export interface Prepared {
  body: string;
  headers: Record<string, string>;
  /** What ties the request to what it causes (its response_url id or trigger id). */
  key: string;
}

export interface Sample {
  key: string;
  /** Wall clock (sub-millisecond) just before the request was written. */
  sentAt: number;
  /** From writing the request to the end of the answer. */
  ackMs: number;
  status: number;
  /** How late the generator sent it against its schedule. */
  lagMs: number;
}

export interface PacedOptions {
  port: number;
  path: string;
  rate: number;
  durationMs: number;
  next: () => Prepared;
}

export async function pacedLoad(options: PacedOptions): Promise<Sample[]> {
  // A fresh pool per round: a server closes idle keep-alive sockets after 5 s, and reusing one
  // it is closing would fail a request for reasons that have nothing to do with the subject.
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const interval = 1000 / options.rate;
  const total = Math.round((options.rate * options.durationMs) / 1000);
  const samples: Sample[] = [];
  const inflight: Promise<void>[] = [];
  const start = performance.now() + 5;

  const fire = (scheduled: number) => {
    const prepared = options.next();
    inflight.push(
      new Promise<void>((resolve) => {
        let sent = 0;
        let sentAt = 0;
        const req = request(
          {
            host: '127.0.0.1',
            port: options.port,
            path: options.path,
            method: 'POST',
            agent,
            headers: {
              ...prepared.headers,
              'content-length': String(Buffer.byteLength(prepared.body)),
            },
          },
          (res) => {
            res.on('data', () => undefined);
            res.on('end', () => {
              samples.push({
                key: prepared.key,
                sentAt,
                ackMs: performance.now() - sent,
                status: res.statusCode ?? 0,
                lagMs: sent - scheduled,
              });
              resolve();
            });
          },
        );
        req.on('error', () => {
          samples.push({ key: prepared.key, sentAt, ackMs: Number.NaN, status: 0, lagMs: 0 });
          resolve();
        });
        sent = performance.now();
        sentAt = wallNow();
        req.end(prepared.body);
      }),
    );
  };

  await new Promise<void>((resolve) => {
    let i = 0;
    const tick = () => {
      const now = performance.now();
      while (i < total && start + i * interval <= now) {
        fire(start + i * interval);
        i += 1;
      }
      if (i >= total) {
        resolve();
        return;
      }
      setTimeout(tick, Math.max(0, start + i * interval - performance.now()));
    };
    setTimeout(tick, 5);
  });
  await Promise.all(inflight);
  agent.destroy();
  return samples;
}

export interface SaturationOptions {
  port: number;
  path: string;
  connections: number;
  /** Either a duration or a number of requests. */
  durationSeconds?: number;
  amount?: number;
  next: () => Prepared;
}

export interface SaturationResult {
  requestsPerSecond: number;
  ok: number;
  failed: number;
  elapsedMs: number;
}

export async function saturate(options: SaturationOptions): Promise<SaturationResult> {
  const result = await autocannon({
    url: `http://127.0.0.1:${options.port}${options.path}`,
    method: 'POST',
    connections: options.connections,
    ...(options.amount !== undefined
      ? { amount: options.amount }
      : { duration: options.durationSeconds ?? 2 }),
    requests: [
      {
        setupRequest: (req) => {
          const prepared = options.next();
          return { ...req, body: prepared.body, headers: { ...req.headers, ...prepared.headers } };
        },
      },
    ],
  });
  const elapsedMs = result.finish.getTime() - result.start.getTime();
  const ok = result['2xx'];
  return {
    requestsPerSecond: ok / (elapsedMs / 1000),
    ok,
    failed: result.non2xx + result.errors,
    elapsedMs,
  };
}
