import { ErrorCode } from '@slack/web-api';
import { CometChatError } from '../cometchat/errors.ts';
import { scrub } from '../scrub.ts';
import { escapedUpTo, escapeMrkdwn, code as inlineCode } from '../slack/mrkdwn.ts';
import { errorField, platformErrorCode } from '../slack/slack-errors.ts';
import { FormNotOpened } from '../slack/views.ts';
import { counted, notWaitingSentence } from './sentences.ts';

/** A mistake in what the user asked for: shown to them as it is, never logged as a fault. */
export class InputError extends Error {
  override readonly name = 'InputError';
}

/**
 * CometChat answered a change, but not with what was asked (another role, the user not listed
 * as (de)activated): the change did not take. A failure, recorded as such, never "applied".
 * The message is plain text, for the record; `sentence` is mrkdwn, for the person.
 */
export class ChangeNotTaken extends Error {
  override readonly name = 'ChangeNotTaken';
  readonly sentence: string;
  /**
   * `subject` is mrkdwn, ids in code: "user `ana`", "role `vip`". `partial`: part of the change
   * took and could not be undone, so what CometChat has is neither before nor after (recorded
   * as an unknown outcome).
   */
  constructor(
    subject: string,
    answered: { plain: string; mrkdwn: string },
    readonly partial = false,
  ) {
    super(`CometChat ${answered.plain}`);
    this.sentence = partial
      ? `CometChat ${answered.mrkdwn} for ${subject}.`
      : `CometChat ${answered.mrkdwn} for ${subject}: the change did not take.`;
  }
}

/** The user may not do this (see the access rules); the sentence says so. */
export class RefusedError extends Error {
  override readonly name = 'RefusedError';
}

const WHAT: Record<string, string> = {
  listRoles: 'the role list',
  setRolePermissions: 'the permission update',
  getCall: 'the call lookup',
  listCalls: 'the call search',
  getUsage: 'the usage figures',
  getUser: 'the user lookup',
  listUsers: 'the user search',
  countUsersWithRole: "the count of a role's users",
  setUserRole: "the user's role change",
  deactivateUsers: 'the deactivation',
  reactivateUsers: 'the reactivation',
  listFriends: "the user's friends",
  listBlockedUsers: "the user's blocks",
  listPermissionDefinitions: 'the permission definitions',
  createRole: 'the role creation',
  updateRole: "the role's new name or description",
  deleteRole: 'the role deletion',
  unsetRolePermission: 'the reset to the default',
  listFlaggedMessages: 'the flagged messages',
  decideFlaggedMessage: 'the decision on the flagged message',
  listBlockedMessages: 'the blocked messages',
  decideBlockedMessage: 'the decision on the blocked message',
  listRules: 'the moderation rules',
  getRule: 'the rule lookup',
  updateRule: "the rule's update",
  listRuleRevisions: "the rule's revisions",
  listSessions: "the user's sessions",
  revokeSession: "the session's sign-out",
  revokeAllSessions: 'the sign-out everywhere',
  listMessages: "the user's messages",
  getMessage: 'the message lookup',
  deleteMessage: 'the message deletion',
  listUserGroups: "the user's groups",
  banGroupMember: 'the ban from the group',
  unbanGroupMember: 'the lifting of the ban',
  getGroup: 'the group lookup',
  listGroups: 'the group search',
  listGroupMembers: "the group's members",
  listBannedMembers: "the group's banned users",
  setMemberScope: "the member's scope change",
  kickGroupMember: 'the removal from the group',
  listScopePermissionDefinitions: "the scope's permission definitions",
  setScopePermissions: "the scope's permission update",
  unsetScopePermission: "the scope's reset to the default",
};

/** What a failure's sentence needs besides the failure. */
export interface SentenceDeps {
  /** The CometChat time budget in seconds, which a timeout's sentence mentions. */
  budgetSeconds: number;
  /** Every secret the app holds (Config.secrets, the list the logger scrubs): none is shown. */
  secrets: readonly string[];
}

/**
 * One sentence a person can act on: what happened and what to do. No stack, no secret, no raw
 * upstream text beyond the service's own short message, whatever CometChat or Slack echoed.
 */
export function failureSentence(error: unknown, deps: SentenceDeps): string {
  return withoutSecrets(sentenceOf(error, deps), deps.secrets);
}

function sentenceOf(error: unknown, deps: SentenceDeps): string {
  if (error instanceof InputError || error instanceof RefusedError) return error.message;
  if (error instanceof ChangeNotTaken) return error.sentence;
  if (!(error instanceof CometChatError)) {
    const slack = slackRefusal(error, deps.secrets);
    if (slack) return slack;
    return 'Something went wrong inside the app. It is logged; try again, and report the reference if it keeps happening.';
  }
  const sentence = cometchatSentence(error, deps);
  // With several apps, every failure says which app it is about.
  return error.app ? `${escapeMrkdwn(error.app.name)}: ${sentence}` : sentence;
}

/**
 * The sentence without a secret, as written or as mrkdwn escaping wrote it (it reads the same).
 * Words from outside are scrubbed before they are escaped and cut, where a cut could leave half
 * a secret; this catches what a sentence made elsewhere holds (a ChangeNotTaken's, an input
 * error's).
 */
function withoutSecrets(sentence: string, secrets: readonly string[]): string {
  return scrub(
    sentence,
    secrets.flatMap((secret) => [secret, escapeMrkdwn(secret)]),
  );
}

/** The operations about users: a 404 from one of them is an unknown uid unless it says role. */
const USER_OPERATIONS: Readonly<Record<string, true>> = Object.freeze({
  getUser: true,
  setUserRole: true,
  listFriends: true,
  listBlockedUsers: true,
  areFriends: true,
  blocksBetween: true,
  listSessions: true,
  revokeSession: true,
  revokeAllSessions: true,
  listUserGroups: true,
  listMessages: true,
  banGroupMember: true,
  unbanGroupMember: true,
});

/** The user reads that answer a deactivated user too (the others answer them as unknown). */
const USER_LOOKUPS: readonly string[] = [
  'getUser',
  'setUserRole',
  'listFriends',
  'listBlockedUsers',
  'areFriends',
  'blocksBetween',
];

/**
 * The requests under one group (`/v3/groups/{guid}/...`): a 404 of theirs is an unknown group
 * unless CometChat's code names the user, the membership or a scope's permission.
 */
const GROUP_OPERATIONS: Readonly<Record<string, true>> = Object.freeze({
  getGroup: true,
  listGroupMembers: true,
  listBannedMembers: true,
  setMemberScope: true,
  kickGroupMember: true,
  listScopePermissionDefinitions: true,
  setScopePermissions: true,
  unsetScopePermission: true,
});

/** Where a person sees what CometChat has of a group now. */
export const LOOK_UP_GROUP = 'Look the group up again (`/cometchat group <guid>`)';

/**
 * CometChat's refusals of a group change, by code, whatever status they come with (CometChat
 * documents the codes, not their statuses). Each says nothing changed and what to do.
 */
const GROUP_REFUSALS: Readonly<Record<string, (code: string) => string>> = Object.freeze({
  ERR_NOT_A_MEMBER: (code) =>
    `That user is not a member of the group${code}: they may have left or been removed. ${LOOK_UP_GROUP} to see its members now.`,
  ERR_SAME_SCOPE: (code) =>
    `The member already has that scope${code}, so nothing changed. ${LOOK_UP_GROUP} to see the scopes now.`,
  ERR_GROUP_NO_SCOPE_CLEARANCE: (code) =>
    `CometChat does not allow that change of this member${code}: the group's owner stays its admin and cannot be removed. Nothing changed.`,
});

/** The requests that name one message: their 404 is an unknown (or permanently deleted) message. */
const MESSAGE_OPERATIONS: Readonly<Record<string, true>> = Object.freeze({
  getMessage: true,
  deleteMessage: true,
});

/**
 * The writes, each with where a person checks what CometChat has now: said of a write CometChat
 * may have carried out though no readable answer confirmed it.
 */
/** Where a person sees what CometChat has of a user now. */
export const LOOK_UP_USER = 'Look the user up again (`/cometchat user <uid>`)';
const WRITES: Readonly<Record<string, string>> = Object.freeze({
  setRolePermissions: 'Open the editor again',
  setUserRole: LOOK_UP_USER,
  deactivateUsers: LOOK_UP_USER,
  reactivateUsers: LOOK_UP_USER,
  createRole: 'Look at `/cometchat roles`',
  updateRole: 'Look at `/cometchat roles`',
  deleteRole: 'Look at `/cometchat roles`',
  unsetRolePermission: 'Open the editor again',
  decideFlaggedMessage: 'Look at `/cometchat moderation`',
  decideBlockedMessage: 'Look at `/cometchat moderation`',
  updateRule: 'Look at `/cometchat rules`',
  revokeSession: LOOK_UP_USER,
  revokeAllSessions: LOOK_UP_USER,
  banGroupMember: LOOK_UP_USER,
  unbanGroupMember: LOOK_UP_USER,
  setMemberScope: LOOK_UP_GROUP,
  kickGroupMember: LOOK_UP_GROUP,
  setScopePermissions: 'Open the editor again',
  unsetScopePermission: 'Open the editor again',
  deleteMessage: 'List the messages again (`/cometchat messages <uid>`)',
});

/** The moderation requests that name one message or one rule: what their 404 is about. */
const MODERATION_LOOKUPS: Readonly<Record<string, 'message' | 'rule'>> = Object.freeze({
  decideFlaggedMessage: 'message',
  decideBlockedMessage: 'message',
  getRule: 'rule',
  updateRule: 'rule',
  listRuleRevisions: 'rule',
});

/**
 * A moderation request's 404. A message leaves the queue once decided, so CometChat answers a
 * second decision as it answers an unknown id (`ERR_MESSAGE_ID_NOT_FOUND`).
 */
function moderationNotFound(error: CometChatError, code: string): string {
  const command = error.app ? `/cometchat ${error.app.name}` : '/cometchat';
  return MODERATION_LOOKUPS[error.operation] === 'rule'
    ? `CometChat has no moderation rule with that id${code}. Check the id with \`${command} rules\`.`
    : notWaitingSentence(undefined, { app: error.app?.name, serviceCode: code });
}

function mayHaveApplied(operation: string): string {
  return `so it may or may not have been applied. ${WRITES[operation] ?? 'Look again'} to check before retrying.`;
}

function cometchatSentence(
  error: CometChatError,
  { budgetSeconds, secrets }: SentenceDeps,
): string {
  const what = WHAT[error.operation] ?? 'the request';
  // No answer, a gateway's failure, or an attempt that went unanswered before a later one failed:
  // the failure does not settle whether the update was applied.
  const write = error.operation in WRITES;
  if (
    write &&
    error.mayHaveReached &&
    error.kind !== 'timeout' &&
    error.kind !== 'invalid_response'
  ) {
    const status = error.status === undefined ? '' : ` (HTTP ${error.status})`;
    return `CometChat did not confirm ${what}${status}, ${mayHaveApplied(error.operation)}`;
  }
  const roles = error.app ? `/cometchat ${error.app.name} roles` : '/cometchat roles';
  // The code and message come from the service: escaped like any other external text. The code
  // is something people search for, so it goes in a code span, which keeps it copyable (plain
  // escaping would put invisible separators around its underscores).
  const serviceCode = error.serviceCode && scrub(error.serviceCode, secrets);
  const code = serviceCode ? ` (${inlineCode(serviceCode)})` : '';
  const groupRefusal = error.serviceCode && GROUP_REFUSALS[error.serviceCode];
  if (groupRefusal) return groupRefusal(code);
  switch (error.kind) {
    case 'not_found':
      if (error.operation in MODERATION_LOOKUPS) return moderationNotFound(error, code);
      if (error.operation === 'getCall') {
        return `CometChat has no call with that session id${code}. Check the id: it is case-sensitive and must be complete.`;
      }
      if (error.operation === 'getUsage') {
        return `CometChat has no usage figures for that time${code}.`;
      }
      return otherNotFound(error, code, roles);
    case 'unauthorized':
      return `CometChat refused the app's API key${code}. An admin should check that ${settingOf(error, 'API_KEY')} is a REST API key with full access for this app.`;
    case 'rate_limited':
      return `CometChat is rate limiting this app${code}; try again in ${seconds(error.retryAfterSeconds ?? 60)}.`;
    case 'bad_request': {
      const reason = withoutFinalStop(scrub(error.serviceMessage ?? error.detail ?? '', secrets));
      return `CometChat refused ${what}${code}: ${escapedUpTo(reason || 'the request was not valid', MAX_REASON)}.`;
    }
    case 'unavailable':
      return `CometChat is not answering ${what} right now${error.status ? ` (HTTP ${error.status})` : ''}. Try again in a minute; if it lasts, check CometChat's status page.`;
    case 'timeout':
      // A 408 is the service saying it did not take the request; any other timeout leaves it open.
      return write && error.status !== 408
        ? `CometChat did not answer ${what} within ${seconds(budgetSeconds)}, ${mayHaveApplied(error.operation)}`
        : `CometChat did not answer ${what} within ${seconds(budgetSeconds)}. Try again in a moment.`;
    case 'misaddressed':
      return misaddressedSentence(error, what, serviceCode);
    case 'invalid_response':
      return write
        ? `CometChat answered ${what} with something this app cannot read, so it may or may not have been applied. Report the reference; the details are in the log.`
        : `CometChat answered ${what} with something this app cannot read. Report the reference; the details are in the log.`;
  }
}

/**
 * A 404 of a role, a user (a deactivated user's uid is answered as unknown too), a session, a
 * group or a message, by the operation and CometChat's code.
 */
function otherNotFound(error: CometChatError, code: string, roles: string): string {
  if (error.serviceCode === 'ERR_GUID_NOT_FOUND') {
    return `CometChat has no group with that guid${code}. Check the guid.`;
  }
  // The client's own "no session with that fingerprint" has no code of CometChat's.
  const noSuchSession = error.operation === 'revokeSession' && error.serviceCode === undefined;
  if (error.serviceCode === 'ERR_AUTH_TOKEN_NOT_FOUND' || noSuchSession) {
    return `That session is gone${code}: the user no longer has it. Look the user up again to see their sessions now.`;
  }
  if (error.operation in GROUP_OPERATIONS && error.serviceCode !== 'ERR_UID_NOT_FOUND') {
    return error.serviceCode === 'ERR_PERMISSION_NOT_FOUND'
      ? `That permission is not set on the group's scope${code}: it is at its default already. Open the editor again to see the scope now.`
      : `CometChat has no group with that guid${code}. Check the guid.`;
  }
  if (error.operation in MESSAGE_OPERATIONS) {
    return `CometChat has no message with that id${code}: it may have been deleted for good. List the messages again.`;
  }
  const aboutUser = error.operation in USER_OPERATIONS || error.operation in GROUP_OPERATIONS;
  if (error.serviceCode === 'ERR_ROLE_NOT_FOUND' || !aboutUser) {
    return `CometChat has no such role${code}. Check the id with \`${roles}\`.`;
  }
  // The user lookup answers a deactivated user; the routes under a uid answer them as unknown.
  const deactivated = USER_LOOKUPS.includes(error.operation)
    ? ''
    : ' (or the account is deactivated: CometChat answers a deactivated user as unknown here)';
  return `CometChat has no user with that uid${code}${deactivated}. Check the uid.`;
}

/** A setting of the app the failure is about, by its name: `COMETCHAT_PROD_API_URL`. */
function settingOf(error: CometChatError, name: string): string {
  return `${error.app?.settingPrefix ?? 'COMETCHAT_'}${name}`;
}

/**
 * A wrong address is a setting to fix, not an outage to wait out: said so, with the settings
 * that make that address (its URL, else the app id and region it is built from).
 */
function misaddressedSentence(
  error: CometChatError,
  what: string,
  serviceCode: string | undefined,
): string {
  const url = settingOf(error, error.address === 'call' ? 'CALL_API_URL' : 'API_URL');
  const other = settingOf(error, error.address === 'call' ? 'API_URL' : 'CALL_API_URL');
  const made = `${url} if it is set, else ${settingOf(error, 'APP_ID')} and ${settingOf(error, 'REGION')}`;
  if (error.status === undefined && /ENOTFOUND/.test(error.detail ?? '')) {
    return `CometChat's address for ${what} does not resolve: a setting is wrong, not CometChat. An admin should check ${made}.`;
  }
  if (error.status === undefined) {
    // Nothing listening: CometChat's hosts always listen, so an address never answered is wrong;
    // one that answered until now may be a network fault on the way.
    return `Nothing answered at CometChat's address for ${what} (the connection was refused). If this app worked before, try again in a minute and check CometChat's status page; if it never did, an admin should check ${made}.`;
  }
  const code = serviceCode ? `, ${inlineCode(serviceCode)}` : '';
  return `CometChat's address for ${what} has no such path (HTTP ${error.status}${code}): a setting is wrong, not CometChat. An admin should check ${url} (the address without \`/v3\`, and not ${other}'s).`;
}

/** The service's own words are a short reason, not a document (an error body may hold 64 KB). */
const MAX_REASON = 300;

/**
 * The service's message is a sentence of its own, usually with its full stop; the reply adds
 * one. A loop, not a regex anchored at the end: that would be quadratic on a long run of spaces.
 */
function withoutFinalStop(text: string): string {
  let end = text.length;
  while (end > 0 && /[\s.!?]/.test(text.charAt(end - 1))) end -= 1;
  return text.slice(0, end);
}

/** `1 second`, `45 seconds`: whole seconds, rounded up, at least one. */
function seconds(value: number): string {
  const n = Math.max(1, Math.ceil(value));
  return counted(n, 'second');
}

/** Whether the failure is the user's (no alarm in the logs) or the system's. */
export function isUserFailure(error: unknown): error is Error {
  return (
    error instanceof InputError ||
    error instanceof RefusedError ||
    (error instanceof CometChatError && error.kind === 'not_found')
  );
}

// A failure the person has been told of already: defined where a modal shows it (slack/).
export { AlreadyShownError } from '../slack/modal-outcome.ts';

/** Slack's trigger ids live three seconds and work once: when one is spent, say so plainly. */
const TRIGGER_ERRORS = new Set([
  'expired_trigger_id',
  'exchanged_trigger_id',
  'invalid_trigger_id',
]);

const RATE_LIMITED = 'Slack is rate limiting this app; try again in a minute.';
/** Said when a form could not be opened within the three seconds a click or command allows. */
const FORM_NOT_OPENED =
  'Slack did not let the app open the window in time (it allows three seconds). Click or run the command again.';

function slackRefusal(error: unknown, secrets: readonly string[]): string | undefined {
  if (error instanceof FormNotOpened) return FORM_NOT_OPENED;
  // A 429 not waited out: the views calls (slack/views.ts) and the clients that refuse to wait.
  const kind = errorField(error, 'code');
  if (kind === ErrorCode.RateLimitedError) return RATE_LIMITED;
  const code = platformErrorCode(error);
  if (kind !== ErrorCode.PlatformError || code === undefined) return undefined;
  if (TRIGGER_ERRORS.has(code)) return FORM_NOT_OPENED;
  if (code === 'ratelimited') return RATE_LIMITED;
  // Scrubbed before it is narrowed, which could leave most of a secret.
  const shown = scrub(code, secrets).replace(/[^a-z0-9_[\]]/g, '');
  return `Slack refused the app's reply (\`${shown}\`). Try again; report the reference if it keeps happening.`;
}

/**
 * A failure logged and told already (by the command router, in place of its progress message):
 * thrown on only so that the request counts as failed; the global handler does nothing more.
 */
export class ReportedFailure extends Error {
  override readonly name = 'ReportedFailure';
  constructor(override readonly cause: unknown) {
    super('a failure logged and told', { cause });
  }
}
