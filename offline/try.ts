import { permissionSpec } from '../src/cometchat/catalogue.ts';
import { SANDBOX_SESSION_IDS } from './cometchat-standin/server.ts';
import {
  categoryOnScreen,
  confirm,
  confirmationOf,
  openEditor,
  submitView,
  switchCategory,
  withFieldSet,
} from './stack/editor-steps.ts';
import { type OfflineStack, startOfflineStack } from './stack/offline-stack.ts';
import { renderMessage, renderView } from './stack/terminal-render.ts';

// `npm run try -- <what>`: the real app, offline, on the CometChat sandbox and a local Slack
// stand-in. Each step sends what Slack would send (signed requests to /slack/events) and
// prints what the app sent back to "Slack".

const USAGE = `Usage: npm run try -- <command>
  roles [page]                      the role list
  call <sessionId> [as <uid>]       a call (see "calls" for the sandbox's ids)
  calls                             the sandbox's session ids
  perms <role> [allow|deny <key>]   open the editor; with a change, make it and confirm it
  shortcut "<message text>"         the "Look up call" message shortcut on a message
  help                              the app's help
  demo                              roles, a call and a permission change (the default)`;

const print = (text: string) => process.stdout.write(`${text}\n`);

async function command(stack: OfflineStack, text: string): Promise<void> {
  print(`\n> /cometchat ${text}`);
  const mark = stack.slack.responses.length;
  const sent = await stack.driver.command(text);
  print(`  (acknowledged: HTTP ${sent.status} in ${Math.round(sent.elapsedMs)} ms)`);
  const reply = await stack.slack.nextResponse(mark, 15_000);
  print(renderMessage(reply.body));
}

async function shortcut(stack: OfflineStack, text: string): Promise<void> {
  print(`\n> "Look up call" on a message: ${text}`);
  const mark = stack.slack.responses.length;
  await stack.driver.interaction(
    stack.driver.messageShortcut({
      callbackId: 'lookup_call_message',
      message: { text, ts: '1700000000.000100' },
    }),
  );
  const reply = await stack.slack.nextResponse(mark, 15_000);
  print(renderMessage(reply.body));
}

async function perms(
  stack: OfflineStack,
  role: string,
  verb?: string,
  key?: string,
): Promise<void> {
  print(`\n> /cometchat perms ${role}`);
  let editor = await openEditor(stack, role);
  print(renderView(editor));
  if (!verb || !key) return;
  const spec = permissionSpec(key);
  if (spec?.kind !== 'action' || (verb !== 'allow' && verb !== 'deny')) {
    print(
      `\n"${verb} ${key}": the try command changes allow/deny permissions only, e.g. "deny sendMessage".`,
    );
    return;
  }
  if (categoryOnScreen(editor) !== spec.category) {
    print(`\n> choose the category "${spec.category}"`);
    editor = await switchCategory(stack, editor, spec.category);
    print(renderView(editor));
  }
  print(`\n> ${verb === 'allow' ? 'check' : 'uncheck'} ${key}, then "Review changes"`);
  const review = await submitView(stack, editor, withFieldSet(editor, key, verb));
  if (review.view) print(renderView(review.view));
  const confirmation = confirmationOf(stack, editor);
  if (!confirmation) return;
  print('\n> "Apply"');
  const { outcome } = await confirm(stack, confirmation);
  print(renderView(outcome));
  const puts = stack.sandbox.requests.filter((r) => r.method === 'PUT');
  print(
    `\nCometChat (sandbox) received ${puts.length} update: ${puts.map((r) => `PUT ${r.path} ${JSON.stringify(r.body)}`).join('; ')}`,
  );
}

async function run(args: string[]): Promise<void> {
  const [what = 'demo', ...rest] = args;
  if (what === 'calls') {
    for (const [name, id] of Object.entries(SANDBOX_SESSION_IDS)) print(`${name.padEnd(16)} ${id}`);
    return;
  }
  const known = ['roles', 'call', 'perms', 'permissions', 'shortcut', 'help', 'demo'];
  if (!known.includes(what)) {
    print(USAGE);
    process.exitCode = 2;
    return;
  }
  const stack = await startOfflineStack({
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
    logDestination: process.stderr,
  });
  try {
    switch (what) {
      case 'perms':
      case 'permissions':
        await perms(stack, rest[0] ?? 'default', rest[1], rest[2]);
        break;
      case 'shortcut':
        await shortcut(
          stack,
          rest.join(' ') || `Customer says ${SANDBOX_SESSION_IDS.audioEnded} dropped`,
        );
        break;
      case 'demo':
        await command(stack, 'roles');
        await command(stack, `call ${SANDBOX_SESSION_IDS.groupOngoing}`);
        await perms(stack, 'default', 'deny', 'sendMessage');
        break;
      default:
        await command(stack, [what, ...rest].join(' '));
    }
  } finally {
    await stack.stop();
  }
}

run(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`try failed: ${(error as Error)?.message ?? String(error)}\n`);
  process.exit(1);
});
