import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';

// Two ways of loading a subject.
//
// Fixed rate (latency): an open-loop generator written here. autocannon's rate option releases
// each second's quota as a burst at the start of the second and records whole milliseconds,
// which at 1-3 ms latencies would measure its own bursts and rounding. This one sends request i
// at start + i/rate whatever the answers do, and times each with performance.now(), on a worker
// thread of its own (paced-worker.mjs).
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
  const total = Math.round((options.rate * options.durationMs) / 1000);
  // Half a second of requests at a time, made here (signing needs the stand-in's driver) and
  // sent from the generator's own thread (paced-worker.mjs).
  const batch = Math.max(20, Math.ceil(options.rate / 2));
  let made = 0;
  const more = (): Prepared[] => {
    const count = Math.min(batch, total - made);
    made += count;
    return Array.from({ length: count }, () => options.next());
  };
  const worker = new Worker(new URL('./paced-worker.mjs', import.meta.url), {
    workerData: {
      port: options.port,
      path: options.path,
      rate: options.rate,
      total,
    },
  });
  try {
    return await new Promise<Sample[]>((resolve, reject) => {
      worker.on('message', (message: { kind: 'more' } | { kind: 'done'; samples: Sample[] }) => {
        if (message.kind === 'done') resolve(message.samples);
        else if (made < total) worker.postMessage({ items: more() });
      });
      worker.on('error', reject);
      worker.on('exit', (code) => reject(new Error(`bench: the load generator exited (${code})`)));
      worker.postMessage({ items: more() });
    });
  } finally {
    await worker.terminate();
  }
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
