import { startBareBolt } from './bolt-app.mjs';

// Baseline: a bare Bolt app (bolt-app.mjs) whose only command acknowledges and posts one fixed
// line to the response_url with Bolt's respond().

await startBareBolt(async ({ ack, respond }) => {
  await ack();
  await respond({ response_type: 'ephemeral', text: 'Bare Bolt says hello.' });
});
