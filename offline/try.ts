import { permissionSpec } from '../src/cometchat/catalogue.ts';
import { ACTIONS, BLOCKS, CALLBACKS } from '../src/slack/ids.ts';
import {
  SANDBOX_ACCOUNT_IDS,
  SANDBOX_MODERATION_IDS,
  SANDBOX_SESSION_IDS,
  SECOND_SANDBOX_SESSION_IDS,
} from './cometchat-standin/server.ts';
import { createSlackDriver } from './slack-standin/driver.ts';
import { dmChannelIdFor } from './slack-standin/ids.ts';
import type { SlashCommandFields } from './slack-standin/payloads.ts';
import type { ResponseUrlPost, SlackStandIn } from './slack-standin/server.ts';
import { waitFor } from './slack-standin/wait-for.ts';
import type { StoredView } from './slack-standin/web-api.ts';
import {
  categoryOnScreen,
  confirm,
  confirmationOf,
  currentView,
  type DrivenStack,
  isReview,
  modalShown,
  openEditor,
  promote,
  promotionsOf,
  submitView,
  switchCategory,
  withFieldSet,
  withUnsetChosen,
} from './stack/editor-steps.ts';
import { OFFLINE_OPERATOR as OPERATOR } from './stack/offline-env.ts';
import type { OfflineStack } from './stack/offline-stack.ts';
import { connectRunningApp, NotRunning } from './stack/running-app.ts';
import { OFFLINE_ENV_FILE } from './stack/standins.ts';
import {
  renderMessage as drawMessage,
  renderView as drawView,
  textOf,
} from './stack/terminal-render.ts';
import { STEP_NAMES, stepTry } from './try-step.ts';

// `npm run try -- <what>`: the real app, offline, on the CometChat sandbox and a local Slack
// stand-in. Each step sends what Slack would send (signed requests to /slack/events) and
// prints what the app sent back to "Slack". With --app, the app is the one `npm run
// start:offline` runs against `npm run standins`, not one the try starts.

const USAGE = `Usage: npm run try -- [staging|prod] <command>
  roles [page]                      the role list
  call <sessionId> [as <uid>]       a call (see "sessions" for the sandbox's ids)
  calls [<uid>] [filters]           find calls, e.g. calls cometchat-uid-2 since:2d status:ended
  sessions                          the sandboxes' session ids
  user <uid>                        a user's card, e.g. user cometchat-uid-7
  user <uid> can <action> [<uid>]   whether they may do it, step by step, e.g.
                                    user cometchat-uid-5 can sendMessage cometchat-uid-7
  user <uid> can <action> in <guid> the same in a group: the role, the membership, a ban,
                                    the member's scope, e.g.
                                    user cometchat-uid-5 can sendMessage in town-hall
  user <uid> role <role>            change their role: the review, "Apply", and the card after,
                                    e.g. user cometchat-uid-4 role vip
  users [<text>] [role:<role>] [deactivated] [page:<n>]
                                    find users, e.g. users role:premium
  group <guid>                      a group's card: type, owner, admins and moderators,
                                    e.g. group hiking
  groups [<text>] [type:<type>] [page:<n>]
                                    find groups, e.g. groups type:private
  role create <id> [from <role> | preset <preset>] [<name>]
                                    make a role: the review, "Apply", and the roles after,
                                    e.g. role create night preset no-calls Night
  role rename|describe <id> <text>  rename or describe a role, e.g. role rename vip Gold
  role delete <id>                  delete a role (the review says who holds it)
  perms <role> [allow|deny <key>]   open the editor; with a change, make it and confirm it
  perms <role> reset <key>          put the key back to the default (CometChat's unset),
                                    e.g. perms banned reset sendMessage
  shortcut "<message text>"         the "Look up call" message shortcut on a message
  approve [<role>] [allow|deny <key>]
                                    with an approval channel: a change requested by one
                                    editor, then approved by another, and applied once
  revert                            a user's role changed, then put back with "Revert" on
                                    its audit record: both applied, both in the audit
  audit export [since:…] [until:…]  a user's role changed and put back, then the trail as a CSV
                                    file in a direct message (since:1h by default): the reply,
                                    and the file's first lines as the Slack stand-in received it
  moderation                        the moderation queue as a moderator sees it, one flagged
                                    message approved through its review, the queue again
  messages <uid> [filters]          a user's messages, newest first (the text: moderators),
                                    e.g. messages customer-1001 since:2025-02-01
  contain [<uid>]                   an account in trouble: sessions revoked, banned from its
                                    groups, its latest messages soft-deleted, deactivated;
                                    then Revert: reactivated and unbanned
  step <name> [...]                 a Workflow Builder step, run as Slack runs it, and how it
                                    ends; <name>: ${STEP_NAMES.join(' | ')}
                                    e.g. step lookup-user cometchat-uid-4 sendMessage,
                                    step change-role cometchat-uid-4 vip (approved by a second
                                    editor, then the step completes)
  home                              the Home tab, as the operator sees it
  alerts                            a channel subscribed to unanswered calls, a call that
                                    ends unanswered, CometChat's webhook and the post it
                                    causes; the same webhook again, not posted twice
  help                              the app's help
  demo                              roles, a call, a user and their calls, and a
                                    permission change (the default)
  --json                            also print each message and view as Slack gets it
  --app[=<url>]                     drive the app npm run start:offline runs (after npm run
                                    standins) instead of starting one; <url> its address
                                    when not the port in .env.offline

  With "staging" or "prod" first, the app serves two CometChat apps of those names, each on
  a sandbox of its own (staging is the default), and the command is for the one named.
  apps                              the two apps and whether their keys work
  promote [<role>] [allow|deny <key>]
                                    a change applied to staging, then applied to prod with
                                    "Apply the same change to prod" after prod's own review`;

/**
 * Said before the demo: the sandbox's data holds text built to break a reply (mentions, links,
 * formatting), and the drawing shows it as Slack does, as plain text.
 */
const DEMO_NOTE = `The sandbox's data includes names and descriptions written to test escaping, such as
"<!channel>" or a link: Slack shows them as the plain text drawn below, never as a mention,
a link or formatting.`;

/** The names the two-app try serves; the first is the default. */
const TRY_APPS = ['staging', 'prod'] as const;
type TryApp = (typeof TRY_APPS)[number];
const isTryApp = (word: string | undefined): word is TryApp => TRY_APPS.includes(word as TryApp);

const print = (text: string) => process.stdout.write(`${text}\n`);

/** `--json`: each message and view as Slack receives it, after its drawing. */
const withJson = process.argv.includes('--json');
const json = (payload: unknown) => (withJson ? `\n${JSON.stringify(payload, null, 2)}` : '');
const renderMessage = (payload: Record<string, unknown>, where?: string) =>
  drawMessage(payload, where) + json(payload);
const renderView = (view: Record<string, unknown>) => drawView(view) + json(view);

/**
 * What a try drives: the app, through a driver that acts as Slack, and the Slack stand-in's
 * records. `local` is the stack the try started; with --app there is none (the app and the
 * stand-ins run apart, and what their sandbox received is not seen here).
 */
interface TryStack extends DrivenStack {
  slack: DrivenStack['slack'] &
    Pick<SlackStandIn, 'responses' | 'homes' | 'nextResponse' | 'responseUrl'>;
  local?: OfflineStack;
}

/** The try's own stack: the tries that need one are refused with --app before anything starts. */
function own(stack: TryStack): OfflineStack {
  if (!stack.local) throw new Error('this try starts an app of its own: run it without --app');
  return stack.local;
}

/** What CometChat received, when the try started the sandbox itself. */
function printUpdates(stack: TryStack, app: string | undefined): void {
  if (stack.local) print(`\n${updatesOf(stack.local, app)}`);
}

/** What followed a command: a reply through its response_url, or a modal it opened. */
type Answer = { reply: ResponseUrlPost } | { modalAfter: number };

/**
 * Sends the command and prints its answer. A modal it opens is drawn, and a review in it is
 * submitted as the person would; resolves with the view that shows the outcome then.
 */
async function command(
  stack: TryStack,
  text: string,
  app?: string,
  fields?: Partial<SlashCommandFields>,
): Promise<StoredView | undefined> {
  const where = fields?.channel_name ? `   (in #${fields.channel_name})` : '';
  print(`\n> /cometchat ${text}${where}`);
  const mark = stack.slack.responses.length;
  const calls = stack.slack.calls.length;
  const sent = await stack.driver.command(text, fields);
  print(`  (acknowledged: HTTP ${sent.status} in ${Math.round(sent.elapsedMs)} ms)`);
  // A subcommand that waits on CometChat acknowledges with what it is doing; its answer then
  // replaces that line in Slack.
  const working = sent.body ? (JSON.parse(sent.body) as Record<string, unknown>) : undefined;
  if (working) print(renderMessage(working));
  const answer = await waitFor<Answer>(
    () => {
      const reply = stack.slack.responses[mark];
      if (reply) return { reply };
      const opened = stack.slack.calls.slice(calls).some((c) => c.method === 'views.open');
      return opened ? { modalAfter: calls } : undefined;
    },
    15_000,
    `an answer to "/cometchat ${text}" (a reply through response_url, or a modal)`,
  );
  if ('modalAfter' in answer) return commandModal(stack, text, answer.modalAfter, app);
  if (answer.reply.body.replace_original) print('  (the answer replaces that line:)');
  print(renderMessage(answer.reply.body));
  return undefined;
}

/**
 * The modal a command opened, drawn once filled in. A review (`user <uid> role <role>`) is
 * submitted with its "Apply", and the outcome drawn with what CometChat received; a modal that
 * only says something is the answer. A form the try cannot fill in fails the try, said once.
 */
async function commandModal(
  stack: TryStack,
  text: string,
  mark: number,
  app: string | undefined,
): Promise<StoredView | undefined> {
  const view = await modalShown(stack, mark);
  print(renderView(view));
  if (!isReview(view)) {
    if (!view.submit) return undefined;
    process.stderr.write(
      `\n"/cometchat ${text}" opened a form the try cannot fill in; nothing was submitted.\n`,
    );
    process.exitCode = 2;
    return undefined;
  }
  print(`\n> "${textOf(view.submit) || 'Apply'}"`);
  const { outcome } = await confirm(stack, view);
  print(renderView(outcome));
  printUpdates(stack, app);
  return outcome;
}

async function shortcut(stack: TryStack, text: string): Promise<void> {
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

/** The updates (POSTs, PUTs and DELETEs) the app's sandbox received, as one line. */
function updatesOf(stack: OfflineStack, app: string | undefined): string {
  const sandbox = app ? (stack.sandboxes[app] ?? stack.sandbox) : stack.sandbox;
  const puts = sandbox.requests.filter((r) => r.method !== 'GET');
  const who = `CometChat (${app ? `${app}'s sandbox` : 'sandbox'})`;
  if (puts.length === 0) return `${who} received no update`;
  const line = (r: (typeof puts)[number]) =>
    `${r.method} ${r.path}${r.body === undefined ? '' : ` ${JSON.stringify(r.body)}`}`;
  return `${who} received ${puts.length} update${puts.length === 1 ? '' : 's'}: ${puts.map(line).join('; ')}`;
}

/** Opens the editor; with a change, makes it and applies it. Resolves with the result view. */
async function perms(
  stack: TryStack,
  role: string,
  verb?: string,
  key?: string,
  app?: string,
): Promise<StoredView | undefined> {
  print(`\n> /cometchat ${app ? `${app} ` : ''}perms ${role}`);
  let editor = await openEditor(stack, role, app);
  print(renderView(editor));
  if (!verb || !key) return undefined;
  const spec = permissionSpec(key);
  // "reset": any key of the catalogue back to the default, chosen in "Back to the default".
  const reset = verb === 'reset';
  if (!spec || (!reset && (spec.kind !== 'action' || (verb !== 'allow' && verb !== 'deny')))) {
    // Nothing was changed: said on stderr, and the try fails, so a script notices.
    process.stderr.write(
      `\n"${verb} ${key}": the try changes allow/deny permissions only (a key of the catalogue), e.g. "deny sendMessage", or puts a key back to the default, e.g. "reset sendMessage". Nothing was changed.\n`,
    );
    process.exitCode = 2;
    return undefined;
  }
  if (categoryOnScreen(editor) !== spec.category) {
    print(`\n> choose the category "${spec.category}"`);
    editor = await switchCategory(stack, editor, spec.category);
    print(renderView(editor));
  }
  const step = reset
    ? `choose ${key} in "Back to the default"`
    : `${verb === 'allow' ? 'check' : 'uncheck'} ${key}`;
  print(`\n> ${step}, then "Review changes"`);
  const values = reset ? withUnsetChosen(editor, [key]) : withFieldSet(editor, key, verb);
  const review = await submitView(stack, editor, values);
  if (review.view) print(renderView(review.view));
  const confirmation = confirmationOf(stack, editor);
  if (!confirmation) return undefined;
  print(`\n> "${textOf(confirmation.submit) || 'Apply'}"`);
  const { outcome } = await confirm(stack, confirmation);
  print(renderView(outcome));
  printUpdates(stack, app);
  return outcome;
}

/** The operator opens the app's Home tab; it is published once everything has arrived. */
async function homeTab(stack: TryStack): Promise<void> {
  print("\n> open the app's Home tab");
  const mark = stack.slack.calls.length;
  await stack.driver.event(stack.driver.homeOpened());
  await stack.slack.nextCall('views.publish', mark, 15_000);
  // A second publish follows when a part was slow; give it a moment to arrive.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const home = stack.slack.homes.get(OPERATOR);
  if (home) print(renderView(home));
}

/** Where the approval try posts its requests, and the second editor who approves them. */
const TRY_APPROVAL = { channel: 'C0TRYAPPROVAL', approver: 'U0TRYLEAD' } as const;

/** A change requested through the editor, posted for approval, then approved by another editor. */
async function approval(stack: TryStack, role: string, verb: string, key: string) {
  const mark = stack.slack.calls.length;
  // The editor's last step is "Request approval" here: its outcome says the request is posted.
  if (!(await perms(stack, role, verb, key))) return;
  const posted = stack.slack.calls
    .slice(mark)
    .find((c) => c.method === 'chat.postMessage' && c.args.channel === TRY_APPROVAL.channel);
  if (!posted) return;
  print(`\n${renderMessage(posted.args, `posted in ${TRY_APPROVAL.channel}`)}`);
  const approve = JSON.stringify(posted.args.blocks).match(
    /"text":\{"type":"plain_text","text":"Approve"[^}]*\},"action_id":"([^"]+)","value":"((?:[^"\\]|\\.)*)"/,
  );
  if (!approve?.[1] || approve[2] === undefined) return;
  print(`\n> <@${TRY_APPROVAL.approver}> clicks "Approve"`);
  const lead = createSlackDriver({
    appUrl: own(stack).appUrl,
    signingSecret: own(stack).config.slack.signingSecret ?? '',
    standIn: own(stack).slack,
    userId: TRY_APPROVAL.approver,
  });
  const clicked = stack.slack.calls.length;
  await lead.interaction(
    lead.blockAction({
      actionId: approve[1],
      value: JSON.parse(`"${approve[2]}"`) as string,
      message: { ts: '1700000000.000200', blocks: posted.args.blocks as unknown[] },
    }),
  );
  const updated = await stack.slack.nextCall('chat.update', clicked, 15_000);
  print(`\n${renderMessage(updated.args, `updated in ${TRY_APPROVAL.channel}`)}`);
  const dm = await stack.slack.waitFor(() =>
    stack.slack.calls
      .slice(clicked)
      .find((c) => c.method === 'chat.postMessage' && c.args.channel === dmChannelIdFor(OPERATOR)),
  );
  print(`\n${renderMessage(dm.args, `direct message to ${OPERATOR}`)}`);
  printUpdates(stack, undefined);
}

/** The audit list's _Revert_ buttons, newest record first. */
function revertButtons(
  message: Record<string, unknown>,
): { text: string; id: string; value: string }[] {
  const blocks = (message.blocks ?? []) as { elements?: Record<string, unknown>[] }[];
  return blocks
    .flatMap((block) => block.elements ?? [])
    .filter((e) => String(e.action_id).startsWith(`${ACTIONS.revertChange}:`))
    .map((e) => ({ text: textOf(e.text), id: String(e.action_id), value: String(e.value) }));
}

/**
 * A user's role changed and applied; the audit list; _Revert_ on its record, the review of the
 * change that puts it back, "Apply"; the audit list again, the revert naming what it reverts.
 */
async function revertTry(stack: TryStack): Promise<void> {
  const changed = await command(stack, 'user cometchat-uid-4 role vip');
  if (!changed || textOf(changed.title) !== 'Applied') return failed('The change was not applied.');
  await revertLatest(stack);
}

/** _Revert_ on the newest record of `/cometchat audit`: its review, "Apply", the audit again. */
async function revertLatest(stack: TryStack): Promise<void> {
  const listed = stack.slack.responses.length;
  await command(stack, 'audit');
  const list = stack.slack.responses[listed]?.body;
  const [revert] = list ? revertButtons(list) : [];
  if (!list || !revert) return failed('The audit list offers no Revert.');
  print(`\n> "${revert.text}"`);
  const mark = stack.slack.calls.length;
  await stack.driver.interaction(
    stack.driver.blockAction({
      actionId: revert.id,
      value: revert.value,
      responseUrl: stack.slack.responseUrl(),
      message: { ts: '1700000000.000400', blocks: list.blocks as unknown[] },
    }),
  );
  const review = await modalShown(stack, mark);
  print(renderView(review));
  if (!isReview(review)) return failed('Revert opened no review.');
  print(`\n> "${textOf(review.submit) || 'Apply'}"`);
  const { outcome } = await confirm(stack, review);
  print(renderView(outcome));
  printUpdates(stack, undefined);
  await command(stack, 'audit');
}

/** The export's progress line, which its answer replaces. */
const EXPORT_PROGRESS = 'Writing the audit trail';

/**
 * `audit export`: two changes made (a user's role, then back), so the trail has records; the
 * export asked; its answer, and the CSV file's first lines as the Slack stand-in received them.
 */
async function auditExportTry(stack: TryStack, app: TryApp | undefined, bounds: string[]) {
  for (const role of ['vip', 'premium']) {
    const outcome = await command(stack, forApp(app, `user cometchat-uid-4 role ${role}`), app);
    if (!outcome || textOf(outcome.title) !== 'Applied')
      return failed('The change was not applied.');
  }
  const { slack } = own(stack);
  const mark = slack.responses.length;
  const words = bounds.length > 0 ? bounds : ['since:1h'];
  await command(stack, forApp(app, ['audit', 'export', ...words].join(' ')));
  // `command` printed the first answer: the progress line, when the file took longer.
  const answered = await slack.waitFor(() => {
    const index = slack.responses.findIndex(
      (r, i) => i >= mark && !textOf(r.body).includes(EXPORT_PROGRESS),
    );
    return index < 0 ? undefined : index;
  }, 15_000);
  const answer = slack.responses[answered]?.body;
  if (answered > mark && answer) print(renderMessage(answer));
  const file = [...slack.files.values()].findLast((f) => f.completed);
  if (!file?.content) return failed('No file was uploaded.');
  // Each record ends with CRLF, the last one too; the byte-order mark is not text to show.
  const text = file.content.toString('utf8').replace(/^\uFEFF/, '');
  const lines = text.split('\r\n').slice(0, -1);
  print(
    `\n< files.completeUploadExternal: ${file.filename} (${file.length} bytes, UTF-8 with a byte-order mark) shared in ${file.channel}`,
  );
  for (const line of lines.slice(0, 4)) print(`  ${line}`);
  if (lines.length > 4) print(`  … ${lines.length - 4} more lines`);
}

/**
 * `user <uid> contain`: the choice (ban from their groups, their messages since a day
 * soft-deleted), its review with every step in order, "Apply", the card after (deactivated, no
 * session), then _Revert_ on its record: reactivated and unbanned.
 */
async function containTry(stack: TryStack, uid: string): Promise<void> {
  print(`\n> /cometchat user ${uid} contain`);
  const mark = stack.slack.calls.length;
  await stack.driver.command(`user ${uid} contain`);
  const choice = await modalShown(stack, mark);
  print(renderView(choice));
  if (choice.callback_id !== CALLBACKS.userContainOptions) return failed('No choice was shown.');
  print(`\n> "Ban them from their groups", messages since ${CONTAIN_SINCE}, "Review"`);
  const reviewMark = stack.slack.calls.length;
  await submitView(stack, choice, {
    [BLOCKS.containGroups]: {
      ban: { type: 'checkboxes', selected_options: [{ value: 'ban' }] },
    },
    [BLOCKS.containSince]: {
      since: { type: 'plain_text_input', value: CONTAIN_SINCE },
    },
  });
  const review = await reviewAfter(stack, choice, reviewMark);
  print(renderView(review));
  if (!isReview(review)) return failed('The choice led to no review.');
  print(`\n> "${textOf(review.submit) || 'Apply'}"`);
  const { outcome } = await confirm(stack, review);
  print(renderView(outcome));
  await command(stack, `user ${uid}`);
  await revertLatest(stack);
  await command(stack, `user ${uid}`);
}

/** The day from which the try's containment deletes: the seeded customer's last messages. */
const CONTAIN_SINCE = '2025-02-01';

/** The view that replaces `view` once its submission's work is done (after "Counting…"). */
async function reviewAfter(stack: TryStack, view: StoredView, mark: number): Promise<StoredView> {
  const update = await waitFor(
    () =>
      stack.slack.calls
        .slice(mark)
        .find((c) => c.method === 'views.update' && c.args.view_id === view.id && c.answer),
    15_000,
    'the review after the choice',
  );
  return currentView(stack, String(update.args.view_id));
}

/**
 * The moderation queue (a moderator's: the texts and the decisions); _Approve_ on its first
 * flagged message, the review, "Apply"; the queue again without it, and the audit record.
 */
async function moderationTry(stack: TryStack): Promise<void> {
  const listed = stack.slack.responses.length;
  await command(stack, 'moderation');
  const queue = stack.slack.responses[listed]?.body;
  const approve = (queue ? buttonsOf(queue, `${ACTIONS.moderationDecide}:approve:`) : [])[0];
  if (!queue || !approve) return failed('The queue offers no Approve.');
  print(`\n> "${approve.text}"`);
  const mark = stack.slack.calls.length;
  await stack.driver.interaction(
    stack.driver.blockAction({
      actionId: approve.id,
      value: approve.value,
      responseUrl: stack.slack.responseUrl(),
      message: { ts: '1700000000.000500', blocks: queue.blocks as unknown[] },
    }),
  );
  const review = await modalShown(stack, mark);
  print(renderView(review));
  if (!isReview(review)) return failed('Approve opened no review.');
  print(`\n> "${textOf(review.submit) || 'Apply'}"`);
  const { outcome } = await confirm(stack, review);
  print(renderView(outcome));
  await command(stack, 'moderation');
  await command(stack, 'audit');
  if (stack.local) await moderationAlert(stack);
}

/**
 * A channel subscribed to moderation alerts; a rule blocks a seeded message and CometChat sends
 * `moderation_engine_blocked`; the post names the sender, the conversation and the rule, never
 * the text, and offers Claim and Review.
 */
async function moderationAlert(stack: TryStack): Promise<void> {
  const { sandbox, appUrl } = own(stack);
  const url = appUrl.replace(/\/slack\/events$/, '/cometchat/webhooks/default');
  const { user, password, channel, channelName } = TRY_ALERTS;
  sandbox.webhooks.configure({ url, username: user, password });
  await command(stack, 'subscribe moderation blocked', undefined, {
    channel_id: channel,
    channel_name: channelName,
  });
  const id = SANDBOX_MODERATION_IDS.blocked.spamLink;
  const mark = stack.slack.calls.length;
  print(`\n> CometChat: a rule blocked the message ${id}; it sends moderation_engine_blocked`);
  const answer = await sandbox.webhooks.sendModeration('moderation_engine_blocked', id);
  print(webhookAnswer(answer));
  if (answer?.status !== 200) return failed('The app did not take the webhook.');
  const posted = await stack.slack.waitFor(() => alertPosts(stack, mark)[0], 15_000);
  print(`\n${renderMessage(posted.args, `posted in #${channelName}`)}`);
}

/** The buttons of a message whose action id starts with `prefix`. */
function buttonsOf(
  message: Record<string, unknown>,
  prefix: string,
): { text: string; id: string; value: string }[] {
  const blocks = (message.blocks ?? []) as { elements?: Record<string, unknown>[] }[];
  return blocks
    .flatMap((block) => block.elements ?? [])
    .filter((e) => String(e.action_id).startsWith(prefix))
    .map((e) => ({ text: textOf(e.text), id: String(e.action_id), value: String(e.value) }));
}

/** A step of a try that did not come out as it should: said on stderr, and the try fails. */
function failed(sentence: string): void {
  process.stderr.write(`\n${sentence}\n`);
  process.exitCode = 1;
}

/** A change applied to staging, then promoted to prod through prod's own review. */
async function promotion(stack: TryStack, role: string, verb: string, key: string) {
  const applied = await perms(stack, role, verb, key, 'staging');
  if (!applied) return;
  if (!promotionsOf(applied).has('prod')) {
    print(`\nprod has no role "${role}", so the result offers no promotion to it.`);
    return;
  }
  print('\n> "Apply the same change to prod"');
  const review = await promote(stack, applied, 'prod');
  print(renderView(review));
  print(`\n${updatesOf(own(stack), 'prod')} (nothing is sent before prod's own "Apply")`);
  print('\n> "Apply"');
  const { outcome } = await confirm(stack, review);
  print(renderView(outcome));
  print(`\n${updatesOf(own(stack), 'prod')}`);
}

/**
 * The alerts try: the channel it subscribes, and the Basic authentication CometChat's webhook is
 * set up with (COMETCHAT_WEBHOOK_USER / _PASSWORD; the app wants a password of 16 characters or
 * more). Not secrets: they exist only in this run.
 */
const TRY_ALERTS = {
  channel: 'C0TRYALERTS',
  channelName: 'call-alerts',
  user: 'cometchat-webhooks',
  password: 'offline-webhook-password-5e81c2',
} as const;

/** The app's posts in the try's channel since `mark`. */
function alertPosts(stack: TryStack, mark: number) {
  return stack.slack.calls
    .slice(mark)
    .filter((c) => c.method === 'chat.postMessage' && c.args.channel === TRY_ALERTS.channel);
}

/** What the app answered CometChat's webhook, as one line. */
function webhookAnswer(answer: { status: number; body: string } | undefined): string {
  return answer === undefined
    ? '  (nothing was sent: the sandbox has no webhook set)'
    : `  (the app answered CometChat: HTTP ${answer.status} ${answer.body})`;
}

/**
 * A channel subscribed to unanswered calls; a seeded call that rang and was not answered, whose
 * `call_unanswered` the sandbox sends to the app as CometChat would (the call's message, which
 * the app reads for the session); the alert posted in the channel; then the same delivery again
 * (CometChat's or a proxy's retry), taken and not posted twice.
 */
async function alerts(stack: TryStack): Promise<void> {
  const { sandbox, appUrl } = own(stack);
  const url = appUrl.replace(/\/slack\/events$/, '/cometchat/webhooks/default');
  const { user, password, channel, channelName } = TRY_ALERTS;
  sandbox.webhooks.configure({ url, username: user, password });
  print(`CometChat's webhook (the sandbox's) posts to ${url}, with Basic authentication.`);
  const announced = stack.slack.calls.length;
  await command(stack, 'subscribe calls status:unanswered', undefined, {
    channel_id: channel,
    channel_name: channelName,
  });
  const announcement = alertPosts(stack, announced)[0];
  if (announcement) print(`\n${renderMessage(announcement.args, `posted in #${channelName}`)}`);

  const sessionId = SANDBOX_SESSION_IDS.unanswered;
  const { trigger, data } = sandbox.webhooks.endedFlow(sessionId);
  const mark = stack.slack.calls.length;
  print(`\n> CometChat: the call ${sessionId} rang unanswered; it sends ${trigger} to the app`);
  const first = await sandbox.webhooks.send(trigger, data);
  print(webhookAnswer(first));
  if (first?.status !== 200) {
    process.stderr.write('\nThe app did not take the webhook, so nothing is posted.\n');
    process.exitCode = 1;
    return;
  }
  const posted = await stack.slack.waitFor(() => alertPosts(stack, mark)[0], 15_000);
  print(`\n${renderMessage(posted.args, `posted in #${channelName}`)}`);

  print(`\n> CometChat sends the same ${trigger} again (a retry, or a proxy repeating it)`);
  print(webhookAnswer(await sandbox.webhooks.send(trigger, data)));
  // A moment for a second post to arrive, were there one.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const count = alertPosts(stack, mark).length;
  print(`\nAlerts posted in #${channelName} for the two deliveries: ${count}.`);
  if (count !== 1) {
    process.stderr.write(`\nThe same delivery was posted ${count} times; it should post once.\n`);
    process.exitCode = 1;
  }
}

/** A try as asked: the app it is for (two-app try only), the command, and the command's words. */
type Try = { app: TryApp | undefined; what: string; rest: string[] };

/** The commands of every try. */
const COMMANDS = [
  'roles',
  'call',
  'calls',
  'user',
  'users',
  'group',
  'groups',
  'role',
  'perms',
  'permissions',
  'shortcut',
  'help',
  'demo',
  'approve',
  'home',
  'alerts',
  'revert',
  'moderation',
  'messages',
  'contain',
  'step',
];
/** The commands that only make sense where two apps are served. */
const TWO_APP_COMMANDS = ['promote', 'apps', 'audit'];
/** The commands the try runs on the single app only (the second seed has no unanswered call). */
const SINGLE_APP_COMMANDS = ['alerts'];

/** An app's name first means the two-app try, whose default is the roles; else the demo. */
function readTry(args: string[]): Try {
  const app = isTryApp(args[0]) ? args[0] : undefined;
  const [what = app ? 'roles' : 'demo', ...rest] = app ? args.slice(1) : args;
  return { app, what, rest };
}

/** "staging roles", "promote" and "apps" run two apps; anything else, the single app as always. */
function servesTwoApps({ app, what }: Try): boolean {
  return app !== undefined || what === 'promote' || what === 'apps';
}

/** `audit export`: a try on the single app too (the list alone is one where two apps are served). */
const isExport = ({ what, rest }: Try) => what === 'audit' && rest[0] === 'export';

/** Decides, before anything starts, whether the try can run this command at all. */
function isKnown(asked: Try): boolean {
  return (
    COMMANDS.includes(asked.what) ||
    isExport(asked) ||
    (servesTwoApps(asked) && TWO_APP_COMMANDS.includes(asked.what))
  );
}

/** A command the try does not know is a mistake: said with the usage, and exit 2 for scripts. */
function refuse(what: string): void {
  process.stderr.write(`There is no try command "${what}".\n\n`);
  print(USAGE);
  process.exitCode = 2;
}

/** The sandboxes' session ids are fixed data, so they are printed without starting anything. */
function printSessions(): void {
  print('staging (and the single app):');
  for (const [name, id] of Object.entries(SANDBOX_SESSION_IDS)) print(`  ${name.padEnd(16)} ${id}`);
  print('prod:');
  for (const [name, id] of Object.entries(SECOND_SANDBOX_SESSION_IDS))
    print(`  ${name.padEnd(16)} ${id}`);
}

/** `--app` or `--app=<url>`: drive the app started apart, not one the try starts. */
const isAppOption = (arg: string) => arg === '--app' || arg.startsWith('--app=');

/** The tries that need an app configured for them (approvals, a webhook, two apps). */
const OWN_APP_COMMANDS = ['approve', 'alerts', 'promote', 'apps', 'step'];

/** Whether the try needs an app of its own: those above, and the export (it reads its file). */
const needsOwnApp = (asked: Try) => OWN_APP_COMMANDS.includes(asked.what) || isExport(asked);

/** A try, with what closes it. */
type Closable = TryStack & { close(): Promise<void> };

/**
 * The app `npm run start:offline` runs, with the settings `npm run standins` wrote (.env.offline,
 * or the file OFFLINE_ENV_FILE names); `--app=<url>` names the app's address instead.
 */
async function connectApart(option: string): Promise<Closable> {
  const address = option.startsWith('--app=') ? option.slice('--app='.length) : undefined;
  const app = await connectRunningApp(process.env.OFFLINE_ENV_FILE || OFFLINE_ENV_FILE, address);
  print(`(the app at ${app.appUrl}, on the stand-ins at ${app.slack.url})`);
  return {
    slack: app.slack,
    driver: app.driver,
    close: async () => app.close(),
  };
}

/** The try's own stack: the stand-ins and the app, configured as the command needs. */
async function startOwnStack(asked: Try): Promise<Closable> {
  const local = await startTryStack(asked);
  return { slack: local.slack, driver: local.driver, local, close: () => local.stop() };
}

/** The stand-ins and the app the command needs: an approval channel, or the two apps. */
async function startTryStack(asked: Try): Promise<OfflineStack> {
  // Loaded here, not above: with --app the app runs apart, and the try starts in a fraction of
  // the time without it.
  const { startOfflineStack } = await import('./stack/offline-stack.ts');
  return startOfflineStack({
    env: {
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      ...(asked.what === 'approve' || asked.what === 'step'
        ? {
            APPROVAL_CHANNEL: TRY_APPROVAL.channel,
            EDITORS: `${OPERATOR},${TRY_APPROVAL.approver}`,
          }
        : {}),
      ...(asked.what === 'alerts' || asked.what === 'moderation'
        ? {
            COMETCHAT_WEBHOOK_USER: TRY_ALERTS.user,
            COMETCHAT_WEBHOOK_PASSWORD: TRY_ALERTS.password,
          }
        : {}),
    },
    logDestination: process.stderr,
    ...(servesTwoApps(asked) ? { apps: TRY_APPS } : {}),
  });
}

/** The slash command's text, addressed to the app the try named, if it named one. */
const forApp = (app: TryApp | undefined, text: string) => (app ? `${app} ${text}` : text);

/** Dispatches a command to what runs it; most are one slash command, as typed. */
async function runTry(stack: TryStack, { app, what, rest }: Try): Promise<void> {
  switch (what) {
    case 'perms':
    case 'permissions':
      await perms(stack, rest[0] ?? 'default', rest[1], rest[2], app);
      break;
    case 'home':
      await homeTab(stack);
      break;
    case 'alerts':
      await alerts(stack);
      break;
    case 'revert':
      await revertTry(stack);
      break;
    case 'moderation':
      await moderationTry(stack);
      break;
    case 'contain':
      await containTry(stack, rest[0] ?? SANDBOX_ACCOUNT_IDS.uid);
      break;
    case 'audit':
      if (rest[0] === 'export') await auditExportTry(stack, app, rest.slice(1));
      else await command(stack, forApp(app, ['audit', ...rest].join(' ')));
      break;
    case 'step': {
      const people = { runner: OPERATOR, ...TRY_APPROVAL };
      const ran = await stepTry(own(stack), rest, people, { print, render: renderMessage });
      if (ran) printUpdates(stack, undefined);
      break;
    }
    case 'approve':
      await approval(stack, rest[0] ?? 'default', rest[1] ?? 'deny', rest[2] ?? 'sendMessage');
      break;
    case 'promote':
      await promotion(stack, rest[0] ?? 'default', rest[1] ?? 'deny', rest[2] ?? 'sendMessage');
      break;
    case 'apps':
      await command(stack, 'apps');
      break;
    case 'shortcut':
      await shortcut(
        stack,
        rest.join(' ') || `Customer says ${SANDBOX_SESSION_IDS.audioEnded} dropped`,
      );
      break;
    case 'demo':
      await demo(stack);
      break;
    case 'user':
      await user(stack, app, rest);
      break;
    case 'role':
      await role(stack, app, rest);
      break;
    default:
      await command(stack, forApp(app, [what, ...rest].join(' ')));
  }
}

/** The default try: a little of each flow, after the note on the sandbox's hostile data. */
async function demo(stack: TryStack): Promise<void> {
  print(DEMO_NOTE);
  await command(stack, 'roles');
  await command(stack, `call ${SANDBOX_SESSION_IDS.groupOngoing}`);
  await command(stack, 'user cometchat-uid-2');
  await command(stack, 'calls cometchat-uid-2 since:2d');
  await perms(stack, 'default', 'deny', 'sendMessage');
}

/** `user …` as typed; a role change once applied shows the card, as CometChat now has them. */
async function user(stack: TryStack, app: TryApp | undefined, rest: string[]): Promise<void> {
  const outcome = await command(stack, forApp(app, ['user', ...rest].join(' ')), app);
  if (outcome && textOf(outcome.title) === 'Applied' && rest[1]?.toLowerCase() === 'role') {
    await command(stack, forApp(app, `user ${rest[0]}`));
  }
}

/** `role …` as typed; once applied, the roles as CometChat now has them (a new one is last). */
async function role(stack: TryStack, app: TryApp | undefined, rest: string[]): Promise<void> {
  const outcome = await command(stack, forApp(app, ['role', ...rest].join(' ')), app);
  if (outcome && textOf(outcome.title) === 'Applied') {
    await command(stack, forApp(app, rest[0]?.toLowerCase() === 'create' ? 'roles 2' : 'roles'));
  }
}

/** The outline of a try: read the words, refuse a mistake, run the command, stop the stack. */
async function run(args: string[]): Promise<void> {
  const running = args.find(isAppOption);
  const asked = readTry(args.filter((arg) => !isAppOption(arg)));
  if (asked.what === 'sessions') return printSessions();
  if (!isKnown(asked)) return refuse(asked.what);
  if (asked.app && SINGLE_APP_COMMANDS.includes(asked.what)) {
    process.stderr.write(
      `The "${asked.what}" try runs on the single app: npm run try -- ${asked.what}\n`,
    );
    process.exitCode = 2;
    return;
  }
  if (running !== undefined && (asked.app || needsOwnApp(asked))) {
    process.stderr.write(
      `The "${asked.app ?? asked.what}" try starts an app configured for it: run it without --app.\n`,
    );
    process.exitCode = 2;
    return;
  }
  const stack = running === undefined ? await startOwnStack(asked) : await connectApart(running);
  try {
    await runTry(stack, asked);
  } finally {
    await stack.close();
  }
}

run(process.argv.slice(2).filter((arg) => arg !== '--json')).catch((error: unknown) => {
  // A try with nothing to drive is said in one sentence, as a mistake is.
  if (error instanceof NotRunning) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`try failed: ${(error as Error)?.message ?? String(error)}\n`);
  process.exit(1);
});
