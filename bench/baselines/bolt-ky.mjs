import ky from 'ky';
import { startBareBolt } from './bolt-app.mjs';

// A reference, not a budget's baseline: bare Bolt (bolt-app.mjs, as bare-bolt.mjs) whose one
// command acknowledges, asks the sandbox for one call through ky, and posts a fixed line with
// Bolt's respond(). It does the upstream work `call` does (one ky GET, one
// reply) and nothing else the app does (no zod, no rendering, no metrics, no store), so
// `npm run bench:cpu` can say how much of the app's CPU per command is that request itself.

const callUrl = process.env.COMETCHAT_CALL_API_URL ?? '';
const sessionId = process.env.BENCH_SESSION_ID ?? '';
const cometchat = ky.create({
  baseUrl: `${callUrl}/v3/`,
  headers: { apikey: process.env.COMETCHAT_API_KEY ?? '', accept: 'application/json' },
  timeout: 5_000,
  retry: { limit: 2 },
});
await startBareBolt(async ({ ack, respond }) => {
  await ack();
  const call = await cometchat.get(`calls/${encodeURIComponent(sessionId)}`).json();
  const found = typeof call === 'object' && call !== null && 'data' in call;
  await respond({
    response_type: 'ephemeral',
    text: found ? 'Bolt and ky found it.' : 'Not found.',
  });
});
