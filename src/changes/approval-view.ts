import type { KnownBlock, View } from '@slack/types';
import { permissionKeyText } from '../replies/permission-key-text.ts';
import { counted, inApp, roleHoldersSentence } from '../replies/sentences.ts';
import { actions, button, context, header, plain, section } from '../slack/blocks.ts';
import type { SlackMessage } from '../slack/deliver.ts';
import { ACTIONS, CALLBACKS } from '../slack/ids.ts';
import { code, escapeMrkdwn, slackDate, truncate } from '../slack/mrkdwn.ts';
import type { ApprovalRequest } from '../store/store.ts';
import { type Change, changeOf, setsPermissions, subjectOf } from './change.ts';
import { containmentSteps } from './containment-view.ts';
import type { AppLabel } from './deps.ts';
import { kickIrreversible } from './kinds/group-member.ts';
import { kindOf } from './kinds/index.ts';
import { deletionIrreversible } from './kinds/message-deletion.ts';
import { moderationIrreversible } from './kinds/moderation.ts';
import { roleAsk, roleChangeLines } from './kinds/role.ts';
import { ruleChangeLines } from './kinds/rule-fields.ts';
import { changeLine, chunkedSections, MAX_REASON } from './views.ts';

// An approval request as Slack shows it: the message in the approval channel (updated in place
// as the request ends), and the line the requester gets by direct message. Pure.

/** The app's name and value writer (as the review takes them), and the outcome's detail. */
export interface ApprovalViewOptions extends AppLabel {
  /** What the outcome adds: CometChat's per-key messages, or the failure and its reference. */
  detail?: string | undefined;
}

/** A request as its views read it: the change it asks for, and who asked it. */
type Shown = Pick<ApprovalRequest, 'id' | 'role' | 'subject' | 'changes'>;

const seconds = (ms: number | undefined) => (ms === undefined ? undefined : Math.floor(ms / 1000));

/** Who decided a request, after its verb (" by @lead"), or nothing when nobody did. Pure. */
export function decidedByText(request: Pick<ApprovalRequest, 'decidedBy'>): string {
  return request.decidedBy ? ` by <@${request.decidedBy}>` : '';
}

/** A rejection's reason after its verb (": not today"), escaped, or nothing. Pure. */
export function rejectionText(request: Pick<ApprovalRequest, 'rejectReason'>): string {
  return request.rejectReason ? `: ${escapeMrkdwn(truncate(request.rejectReason, 300))}` : '';
}

/** The outcome in one line: what became of the request, by whom. */
export function outcomeLine(request: ApprovalRequest): string {
  const by = decidedByText(request);
  const when = request.decidedAt ? ` ${slackDate(seconds(request.decidedAt))}` : '';
  switch (request.status) {
    case 'open':
      return `:hourglass_flowing_sand: Waiting for approval until ${slackDate(seconds(request.expiresAt))}.`;
    case 'applied':
      return `:white_check_mark: Approved${by} and applied${when}.`;
    case 'failed':
      return `:x: Approved${by}, but CometChat did not apply it${when}. An approver may retry.`;
    case 'unknown':
      return `:grey_question: Approved${by}${when}, but CometChat's answer never came or could not be read, so it may or may not have been applied. Check ${checkWhat(request)} before an approver retries.`;
    case 'rejected':
      return `:no_entry: Rejected${by}${when}${rejectionText(request) || '.'}`;
    case 'expired':
      return `:hourglass: Expired ${slackDate(seconds(request.expiresAt))} before anyone approved it; nothing was sent. ${askAgain(request)}`;
    case 'stale':
      return staleLine(request);
  }
}

/** What to look at when a request's outcome is unknown. Pure. */
function checkWhat(request: Pick<ApprovalRequest, 'subject'>): string {
  switch (request.subject?.kind) {
    case 'user':
    case 'containment':
      return 'the user';
    case 'message':
      return 'whether the message still waits in `/cometchat moderation`';
    case 'messages':
      return `the messages (\`/cometchat messages ${request.subject.sender}\`)`;
    case 'rule':
      return 'the rule';
    case 'group-member':
      return `the member (\`/cometchat group ${request.subject.guid}\`)`;
    default:
      return 'the role';
  }
}

/** A request found stale: what changed, and where to ask again. Pure. */
function staleLine(request: Pick<ApprovalRequest, 'subject'>): string {
  switch (request.subject?.kind) {
    case 'message':
      return `:warning: Message ${code(request.subject.id)} was decided meanwhile; nothing was sent.`;
    case 'messages':
      return `:warning: A message to delete was gone or deleted meanwhile, so nothing was sent. ${askAgain(request)}`;
    case 'user':
    case 'containment':
      return `:warning: The user changed in CometChat since this request was made, so nothing was sent. ${askAgain(request)}`;
    case 'role':
      return `:warning: CometChat's roles are no longer as this request was reviewed against, so nothing was sent. ${askAgain(request)}`;
    case 'rule':
      return `:warning: The rule changed in CometChat since this request was made, so nothing was sent. ${askAgain(request)}`;
    case 'group-member':
      return `:warning: The member changed in CometChat since this request was made, so nothing was sent. ${askAgain(request)}`;
    default:
      return ":warning: The role changed since this request was made (someone applied another change), so nothing was sent. Ask again from the editor, on the role's new values.";
  }
}

/**
 * Where to make a request again: the user's card for a user, the command for a role itself, the
 * editor for a role's permissions. Pure.
 */
export function askAgain(request: Pick<ApprovalRequest, 'subject'>): string {
  switch (request.subject?.kind) {
    case 'user':
    case 'containment':
      return "Ask again from the user's card.";
    case 'role':
      return 'Ask again with `/cometchat role`.';
    case 'rule':
      return 'Ask again from `/cometchat rules`.';
    case 'message':
      return 'Ask again from `/cometchat moderation` if it still waits.';
    case 'messages':
      return `Ask again from \`/cometchat messages ${request.subject.sender}\`.`;
    case 'group-member':
      return `Ask again from the group's card (\`/cometchat group ${request.subject.guid}\`).`;
    default:
      return 'Ask again from the editor.';
  }
}

/** What a request asks, after "asks to": the role change's own verb, else how many changes. */
function askedText(change: Change): string {
  if (change.kind === 'role') return roleAsk(change.action, change.role);
  return `apply ${counted(change.changes.length, 'change')} to ${kindOf(change).name}`;
}

/** For a role's deletion, who holds the role, as the requester's review said; else nothing. */
function holdersText(change: Change, holders: number | undefined): string {
  return change.kind === 'role' && change.action === 'delete'
    ? ` ${roleHoldersSentence(holders)}`
    : '';
}

/** A request's changes, line by line, as the approver reads them. */
function requestedLines(change: Change): string[] {
  if (change.kind === 'role') return roleChangeLines(change.changes);
  if (change.kind === 'rule') return ruleChangeLines(change.changes);
  if (change.kind === 'containment') return containmentSteps(change);
  const lines = change.changes.map((c) => changeLine(c, change.kind));
  // The approver is told what cannot be undone, as the requester's review said.
  const subject = subjectOf(change);
  const irreversible =
    moderationIrreversible({ subject, changes: change.changes }) ??
    deletionIrreversible({ subject }) ??
    kickIrreversible({ subject, changes: change.changes });
  return irreversible ? [...lines, `Its record will have no _Revert_: ${irreversible}`] : lines;
}

/** The request in the approval channel: the exact change, who asked and why, and its state. */
export function approvalMessage(
  request: ApprovalRequest,
  options: ApprovalViewOptions = {},
): SlackMessage {
  const change = changeOf(request);
  const write = options.write ?? JSON.stringify;
  const blocks: KnownBlock[] = [
    header(`Approval request${options.appName ? ` · ${options.appName}` : ''}`),
    section(
      `${request.workflowStep ? 'Through Workflow Builder, ' : ''}<@${request.requester}> asks to ${askedText(change)}${inApp(options.appName)}.${holdersText(change, request.holders)}${request.reason ? `\n_Reason:_ ${escapeMrkdwn(truncate(request.reason, 300))}` : ''}`,
    ),
    ...chunkedSections(requestedLines(change)),
    context([
      `Requested ${slackDate(seconds(request.requestedAt))} · expires ${slackDate(seconds(request.expiresAt))}${request.promotedFrom ? ` · promoted from ${code(request.promotedFrom)}` : ''}${request.reverts ? ` · reverts the change with ref ${code(request.reverts)}` : ''}`,
    ]),
    section(outcomeLine(request)),
  ];
  if (options.detail) blocks.push(...chunkedSections([options.detail]));
  const value = write({ id: request.id });
  if (request.status === 'open') {
    blocks.push(
      actions([
        button('Approve', ACTIONS.approveChange, value, 'primary'),
        button('Reject', ACTIONS.rejectChange, value, 'danger'),
      ]),
    );
  } else if (request.status === 'failed' || request.status === 'unknown') {
    blocks.push(actions([button('Retry', ACTIONS.approveChange, value)]));
  }
  const n = request.changes.length;
  return {
    text: `Approval request: ${counted(n, 'change')} to ${kindOf(change).name} by <@${request.requester}> (${request.status})`,
    blocks: blocks.slice(0, 50),
  };
}

/**
 * What the requester is told by direct message once the request has ended: what became of it,
 * and, below, exactly what it asked and when, so that an expired one can be asked again as it was.
 */
export function outcomeNotice(request: ApprovalRequest, appName?: string): SlackMessage {
  const what = kindOf(changeOf(request)).name;
  const text = `Your request to change ${what}${inApp(appName)}: ${outcomeLine(request)}`;
  const asked = `Asked ${slackDate(seconds(request.requestedAt))}: ${requestLine(request, appName, 5)}`;
  return { text, blocks: [section(text), context([asked])] };
}

/** Mentions a reminder names at most; Slack notifies each, and a crowd reads as noise. */
const REMINDED = 20;

/** A Slack user (`<@U…>`) or user group (`<!subteam^S…>`) mentioned. Pure. */
function mention(id: string): string {
  return id.startsWith('S') ? `<!subteam^${id}>` : `<@${id}>`;
}

/**
 * The one reminder of an open request, a reply in its thread: whom it waits for (`mentions`, the
 * users and user groups who may decide it; none: the workspace's admins), what it asks and until
 * when. Pure.
 */
export function reminderMessage(
  request: ApprovalRequest,
  mentions: readonly string[],
  appName?: string,
): SlackMessage {
  const named = mentions.slice(0, REMINDED).map(mention).join(' ');
  const more = mentions.length > REMINDED ? ` and ${mentions.length - REMINDED} more` : '';
  const who = named ? `${named}${more}` : 'Workspace admins';
  const text = `:bell: ${who}: this request still waits for a decision: ${requestLine(request, appName, 5)}. It expires ${slackDate(seconds(request.expiresAt))}; nothing is sent unless someone approves it.`;
  return { text, blocks: [section(text)] };
}

/** The block and field of the reason a rejection gives. */
export const REJECT_BLOCK = 'reject_reason';
export const REJECT_INPUT = 'reason';

/**
 * "Reject" asks why, for the requester: the modal whose submission closes the request.
 * `privateMetadata` names the request (signed for its app).
 */
export function rejectReasonView(request: ApprovalRequest, privateMetadata: string): View {
  const what = kindOf(changeOf(request)).name;
  return {
    type: 'modal',
    callback_id: CALLBACKS.rejectReason,
    title: plain('Reject the change', 24),
    submit: plain('Reject', 24),
    close: plain('Cancel', 24),
    private_metadata: privateMetadata,
    blocks: [
      section(`Reject the change to ${what} asked by <@${request.requester}>?`),
      {
        type: 'input',
        block_id: REJECT_BLOCK,
        label: plain('Why (the requester is told)'),
        element: {
          type: 'plain_text_input',
          action_id: REJECT_INPUT,
          multiline: true,
          max_length: MAX_REASON,
        },
      },
    ],
  };
}

/** Requests a list shows at most; the rest are counted. */
const LISTED = 20;

/** An open request as a list shows it: with its app's name (when several) and button value. */
export interface ListedRequest {
  request: ApprovalRequest;
  appName?: string | undefined;
  value: string;
}

/** `/cometchat approvals`: the open requests this person may act on, each with its buttons. */
export function approvalsList(entries: readonly ListedRequest[]): SlackMessage {
  const blocks: KnownBlock[] = [header('Approvals waiting for you')];
  if (entries.length === 0) {
    blocks.push(section('No open request is waiting for you.'));
  }
  for (const { request, appName, value } of entries.slice(0, LISTED)) {
    blocks.push(
      section(
        `<@${request.requester}>: ${requestLine(request, appName, 5)} · expires ${slackDate(seconds(request.expiresAt))}${request.reason ? `\n_Reason:_ ${escapeMrkdwn(truncate(request.reason, 200))}` : ''}`,
      ),
      decisionButtons(value),
    );
  }
  if (entries.length > LISTED) {
    blocks.push(context([`${entries.length - LISTED} more not shown; the oldest come first.`]));
  }
  return {
    text: `${counted(entries.length, 'approval request')} waiting for you`,
    blocks,
  };
}

/** Approve and Reject, the same buttons wherever a request is shown. */
function decisionButtons(value: string): KnownBlock {
  return actions([
    button('Approve', ACTIONS.approveChange, value, 'primary'),
    button('Reject', ACTIONS.rejectChange, value, 'danger'),
  ]);
}

/**
 * What a request asks, as a line of a list: for a role's permissions, how many keys and which;
 * for a user, whom and each key from before to after, so an approver sees whom a change is
 * about; for a role itself, what it does. Pure.
 */
export function requestLine(request: Shown, appName: string | undefined, keys: number): string {
  const change = changeOf(request);
  const kind = kindOf(change);
  const what = `${kind.name}${inApp(appName)}`;
  if (change.kind === 'role') return `${what}: ${kind.done}`;
  if (change.kind === 'rule') return `${what}: ${ruleChangeLines(change.changes).join('; ')}`;
  if (change.kind === 'containment') return `${what}: ${containmentSteps(change).join(' ')}`;
  if (!setsPermissions(change)) {
    const changes = request.changes.map(
      (c) => `${code(c.key)} ${code(String(c.before ?? '—'))} → ${code(String(c.after))}`,
    );
    return `${what}: ${changes.join(', ')}`;
  }
  const n = request.changes.length;
  const shown = request.changes.slice(0, keys).map((c) => permissionKeyText(c.key));
  return `${counted(n, 'change')} to ${what} (${shown.join(', ')}${n > keys ? ', …' : ''})`;
}

/**
 * The Home tab's approvals: the requests waiting for this person, most recent first, each with
 * Approve and Reject (the same buttons as in the channel), how many more there are, and their
 * own requests still open. Empty when there is neither.
 */
export function homeApprovalBlocks(
  waiting: readonly ListedRequest[],
  own: readonly Omit<ListedRequest, 'value'>[],
  shown = 10,
): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  if (waiting.length > 0) {
    blocks.push(header(`Waiting for your approval (${waiting.length})`));
    for (const { request, appName, value } of [...waiting].reverse().slice(0, shown)) {
      blocks.push(
        section(
          `<@${request.requester}>: ${requestLine(request, appName, 3)} · expires ${slackDate(seconds(request.expiresAt))}`,
        ),
        decisionButtons(value),
      );
    }
    if (waiting.length > shown) {
      blocks.push(
        context([
          `${waiting.length - shown} older not shown: \`/cometchat approvals\` lists them all.`,
        ]),
      );
    }
  }
  if (own.length > 0) {
    const lines = [...own]
      .reverse()
      .slice(0, shown)
      .map(
        ({ request, appName }) =>
          `• ${requestLine(request, appName, 3)}, asked ${slackDate(seconds(request.requestedAt))}, expires ${slackDate(seconds(request.expiresAt))}`,
      );
    if (own.length > shown) lines.push(`_…and ${own.length - shown} more_`);
    blocks.push(section(`*Your requests waiting for approval*\n${lines.join('\n')}`));
  }
  return blocks;
}
