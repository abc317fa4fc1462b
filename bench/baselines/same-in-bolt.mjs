import { readFileSync } from 'node:fs';
import ky from 'ky';
import { startBareBolt } from './bolt-app.mjs';

// The baseline each command is judged against: the same command written in bare Bolt and ky.
// For each command text, the script the bench hands it (BENCH_SCRIPT, made by same-in-bolt.ts
// from what the warm app did for that text) gives the app's acknowledgement (empty, or its
// progress message), the CometChat GETs the app made, sent here through ky with the app's
// headers and each answer parsed, and then the app's own reply, posted
// with respond(), or its own view, opened with client.views.open. No access check, no zod, no
// rendering, no metrics, logs or store: between this and the app is the app's own work only.

/** @type {Record<string, { ack?: object, gets: string[], reply?: object, view?: object }>} */
const script = JSON.parse(readFileSync(process.env.BENCH_SCRIPT ?? '', 'utf8'));
const cometchat = ky.create({
  headers: { apikey: process.env.COMETCHAT_API_KEY ?? '', accept: 'application/json' },
  timeout: 5_000,
  retry: { limit: 2 },
});

await startBareBolt(async ({ command, ack, respond, client }) => {
  const step = script[command.text];
  if (step === undefined) throw new Error(`same-in-bolt: no script for "${command.text}"`);
  // The app's own acknowledgement: empty, or its progress message.
  await ack(step.ack);
  for (const url of step.gets) await cometchat.get(url).json();
  if (step.view) await client.views.open({ trigger_id: command.trigger_id, view: step.view });
  else await respond(step.reply ?? { text: 'no reply in the script' });
});
