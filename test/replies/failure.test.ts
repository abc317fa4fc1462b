import { describe, expect, it } from 'vitest';
import { CometChatError } from '../../src/cometchat/errors.ts';
import {
  ChangeNotTaken,
  failureSentence,
  InputError,
  isUserFailure,
  RefusedError,
} from '../../src/replies/failure.ts';
import { escapeMrkdwn } from '../../src/slack/mrkdwn.ts';

/** What the failure sentences are given: the budget they mention, and no secrets. */
const SENTENCE_DEPS = { budgetSeconds: 8, secrets: [] };

const slackError = (code: string) =>
  Object.assign(new Error(`An API error occurred: ${code}`), {
    code: 'slack_webapi_platform_error',
    data: { ok: false, error: code },
  });

describe('failureSentence', () => {
  it('names what a sessions, groups or messages request did not find, never a role', () => {
    const notFound = (operation: string, serviceCode: string) =>
      failureSentence(
        new CometChatError({ kind: 'not_found', ref: 'r', operation, status: 404, serviceCode }),
        SENTENCE_DEPS,
      );
    expect(notFound('revokeSession', 'ERR_AUTH_TOKEN_NOT_FOUND')).toMatch(/^That session is gone/);
    expect(notFound('banGroupMember', 'ERR_GUID_NOT_FOUND')).toMatch(/no group with that guid/);
    expect(notFound('deleteMessage', 'ERR_MSG_NOT_FOUND')).toMatch(/no message with that id/);
    expect(notFound('listSessions', 'ERR_UID_NOT_FOUND')).toMatch(/no user .* deactivated/);
    expect(notFound('getUser', 'ERR_UID_NOT_FOUND')).not.toContain('deactivated');
  });

  it('says what a group request did not find: the group, the user, the member, a set key', () => {
    const notFound = (operation: string, serviceCode?: string) =>
      failureSentence(
        new CometChatError({ kind: 'not_found', ref: 'r', operation, status: 404, serviceCode }),
        SENTENCE_DEPS,
      );
    for (const operation of ['getGroup', 'listGroupMembers', 'setScopePermissions']) {
      expect(notFound(operation, 'ERR_GUID_NOT_FOUND')).toMatch(/no group with that guid/);
    }
    expect(notFound('listBannedMembers')).toMatch(/^CometChat has no group with that guid/);
    expect(notFound('kickGroupMember', 'ERR_UID_NOT_FOUND')).toMatch(/no user .* deactivated/);
    expect(notFound('kickGroupMember', 'ERR_NOT_A_MEMBER')).toMatch(
      /^That user is not a member of the group \(`ERR_NOT_A_MEMBER`\)/,
    );
    expect(notFound('unsetScopePermission', 'ERR_PERMISSION_NOT_FOUND')).toMatch(
      /not set on the group's scope .*at its default already/,
    );
    for (const operation of ['getGroup', 'setMemberScope', 'unsetScopePermission']) {
      expect(notFound(operation, 'ERR_GUID_NOT_FOUND')).not.toMatch(/role/);
    }
  });

  it('says each refusal of a member change in one sentence, whatever its status', () => {
    const refused = (serviceCode: string, status: number) =>
      failureSentence(
        new CometChatError({
          kind: status === 403 ? 'unauthorized' : 'bad_request',
          ref: 'r',
          operation: 'setMemberScope',
          status,
          serviceCode,
        }),
        SENTENCE_DEPS,
      );
    expect(refused('ERR_SAME_SCOPE', 400)).toMatch(
      /^The member already has that scope .*nothing changed/,
    );
    for (const status of [400, 403]) {
      const sentence = refused('ERR_GROUP_NO_SCOPE_CLEARANCE', status);
      expect(sentence).toMatch(/^CometChat does not allow that change of this member/);
      expect(sentence).not.toMatch(/API key/);
    }
  });

  it('says a member change CometChat did not confirm may have been applied', () => {
    const sentence = failureSentence(
      new CometChatError({
        kind: 'bad_request',
        ref: 'r',
        operation: 'setMemberScope',
        status: 400,
        serviceCode: 'ERR_SAME_SCOPE',
        mayHaveReached: true,
      }),
      SENTENCE_DEPS,
    );
    expect(sentence).toMatch(
      /did not confirm the member's scope change .*may or may not have been applied/,
    );
    expect(sentence).toContain('/cometchat group <guid>');
  });

  it('passes a user mistake or a refusal through as it is', () => {
    expect(failureSentence(new InputError('The page must be a whole number.'), SENTENCE_DEPS)).toBe(
      'The page must be a whole number.',
    );
    expect(failureSentence(new RefusedError('Only editors may do that.'), SENTENCE_DEPS)).toBe(
      'Only editors may do that.',
    );
  });

  it('says "inside the app" for a fault of our own, without its message', () => {
    const sentence = failureSentence(
      new TypeError('Cannot read properties of undefined'),
      SENTENCE_DEPS,
    );
    expect(sentence).toMatch(/^Something went wrong inside the app/);
    expect(sentence).not.toContain('undefined');
  });

  it('names a spent trigger id plainly, and any other Slack refusal by its code', () => {
    expect(failureSentence(slackError('expired_trigger_id'), SENTENCE_DEPS)).toMatch(
      /three seconds/,
    );
    expect(failureSentence(slackError('channel_not_found'), SENTENCE_DEPS)).toContain(
      '`channel_not_found`',
    );
    expect(failureSentence(slackError('<!channel>'), SENTENCE_DEPS)).not.toContain('<');
  });

  it('tells a timed-out update that it may or may not have been applied', () => {
    const error = new CometChatError({
      kind: 'timeout',
      ref: 'r1',
      operation: 'setRolePermissions',
    });
    expect(failureSentence(error, SENTENCE_DEPS)).toMatch(/may or may not have been applied/);
    expect(
      failureSentence(
        new CometChatError({ kind: 'timeout', ref: 'r2', operation: 'getCall' }),
        SENTENCE_DEPS,
      ),
    ).toMatch(/within 8 seconds/);
  });

  it('names the app of one of several, and the setting of its refused key', () => {
    const prod = { name: 'prod', settingPrefix: 'COMETCHAT_PROD_' };
    const refused = new CometChatError({ kind: 'unauthorized', ref: 'r3', operation: 'listRoles' });
    expect(failureSentence(refused, SENTENCE_DEPS)).toContain('COMETCHAT_API_KEY is');
    const sentence = failureSentence(refused.forApp(prod), SENTENCE_DEPS);
    expect(sentence).toMatch(/^prod: CometChat refused/);
    expect(sentence).toContain('COMETCHAT_PROD_API_KEY is');
    const missing = new CometChatError({ kind: 'not_found', ref: 'r4', operation: 'listRoles' });
    expect(failureSentence(missing.forApp(prod), SENTENCE_DEPS)).toContain(
      '`/cometchat prod roles`',
    );
    // The copy is the same failure otherwise.
    expect(refused.forApp(prod)).toMatchObject({ kind: 'unauthorized', ref: 'r3', app: prod });
  });

  it("counts unknown ids and refusals as the user's, outages as the system's", () => {
    expect(
      isUserFailure(new CometChatError({ kind: 'not_found', ref: 'r', operation: 'getCall' })),
    ).toBe(true);
    expect(
      isUserFailure(new CometChatError({ kind: 'unavailable', ref: 'r', operation: 'getCall' })),
    ).toBe(false);
    expect(isUserFailure(new RefusedError('no'))).toBe(true);
  });
});

describe('failureSentence and the secrets the app holds', () => {
  // As config.secrets lists them: Slack's tokens and secret, a webhook password (with the
  // characters mrkdwn escaping changes), CometChat's key.
  const BOT_TOKEN = 'xoxb-1111-2222-echoedBotToken';
  const SIGNING_SECRET = '8f742231b10e8888abcd99aaa85a5e2f';
  const PASSWORD = 'hook_pass*word&<2>';
  const deps = { budgetSeconds: 8, secrets: [BOT_TOKEN, SIGNING_SECRET, PASSWORD] };
  const refused = (message: string, serviceCode?: string) =>
    new CometChatError({
      kind: 'bad_request',
      ref: 'r1',
      operation: 'listCalls',
      status: 400,
      serviceCode,
      serviceMessage: message,
    });

  it('shows [redacted] where CometChat echoed a token, a password or the signing secret', () => {
    for (const secret of [BOT_TOKEN, SIGNING_SECRET, PASSWORD]) {
      const sentence = failureSentence(refused(`nothing with ${secret} here.`), deps);
      expect(sentence).toBe('CometChat refused the call search: nothing with [redacted] here.');
    }
    const coded = failureSentence(refused('no', `ERR_${SIGNING_SECRET}`), deps);
    expect(coded).toContain('(`ERR_[redacted]`)');
    expect(coded).not.toContain(SIGNING_SECRET);
  });

  it('scrubs before it cuts, so no part of a secret is left at the cut', () => {
    const long = `${'x'.repeat(290)} ${BOT_TOKEN} and more`;
    const sentence = failureSentence(refused(long), deps);
    expect(sentence).not.toContain(BOT_TOKEN.slice(0, 8));
    // The cut falls inside what stands for the token.
    expect(sentence).toMatch(/x \[redact[a-z]*…\.$/);
  });

  it('scrubs a sentence made elsewhere, as written or as mrkdwn escaped it', () => {
    const notTaken = new ChangeNotTaken('role `vip`', {
      plain: `answered ${PASSWORD}`,
      mrkdwn: `answered ${escapeMrkdwn(PASSWORD)}`,
    });
    expect(failureSentence(notTaken, deps)).toBe(
      'CometChat answered [redacted] for role `vip`: the change did not take.',
    );
    expect(failureSentence(new InputError(`No role ${BOT_TOKEN}.`), deps)).toBe(
      'No role [redacted].',
    );
  });

  it('scrubs what Slack echoes as its error code', () => {
    const sentence = failureSentence(slackError(SIGNING_SECRET), deps);
    expect(sentence).toContain('(`[redacted]`)');
    expect(sentence).not.toContain(SIGNING_SECRET.slice(0, 8));
  });

  it('leaves a sentence alone when it holds no secret', () => {
    expect(failureSentence(refused('The uid is not valid.'), deps)).toBe(
      'CometChat refused the call search: The uid is not valid.',
    );
  });
});
