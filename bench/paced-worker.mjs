import { Agent, request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

// The fixed-rate generator's loop (see pacedLoad in load.ts), on a thread of its own: the
// bench's main thread also runs the Slack stand-in and the sandbox, and their work on one
// command's reply (parsing it, checking its blocks) used to hold up the sending and timing of
// the next. Plain JavaScript, since a worker thread does not get tsx's loader.
//
// In: workerData { port, path, rate, total }, then messages { items } with the
// prepared requests, made on the main thread a little ahead of use (a trigger_id is only good
// for three seconds). Out: { kind: 'more' } when fewer than `low` are left, then
// { kind: 'done', samples }.

const { port, path, rate, total } = workerData;
const queue = [];
let asked = false;
const low = Math.max(10, Math.ceil(rate / 4));

parentPort.on('message', (message) => {
  queue.push(...message.items);
  asked = false;
  if (!running) run();
});

const wallNow = () => performance.timeOrigin + performance.now();
let running = false;

function run() {
  running = true;
  // A fresh pool per round: a server closes idle keep-alive sockets after 5 s, and reusing one
  // it is closing would fail a request for reasons that have nothing to do with the subject.
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const interval = 1000 / rate;
  const samples = [];
  const inflight = [];
  const start = performance.now() + 5;
  let fired = 0;

  const fire = (prepared, scheduled) => {
    inflight.push(
      new Promise((resolve) => {
        let sent = 0;
        let sentAt = 0;
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path,
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

  const tick = () => {
    const now = performance.now();
    while (fired < total && fired < queue.length && start + fired * interval <= now) {
      fire(queue[fired], start + fired * interval);
      queue[fired] = undefined;
      fired += 1;
    }
    if (!asked && queue.length - fired < low && queue.length < total) {
      asked = true;
      parentPort.postMessage({ kind: 'more' });
    }
    if (fired >= total) {
      void Promise.all(inflight).then(() => {
        agent.destroy();
        parentPort.postMessage({ kind: 'done', samples });
      });
      return;
    }
    // Waiting for requests from the main thread shows as lag, as a busy loop would.
    const wait = fired < queue.length ? start + fired * interval - performance.now() : 1;
    setTimeout(tick, Math.max(0, wait));
  };
  setTimeout(tick, 5);
}
