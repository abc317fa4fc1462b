import { describe, expect, it } from 'vitest';
import { CometChatError } from '../../src/cometchat/errors.ts';
import {
  failureSentence,
  InputError,
  isUserFailure,
  RefusedError,
} from '../../src/voice/failure.ts';

const slackError = (code: string) =>
  Object.assign(new Error(`An API error occurred: ${code}`), {
    code: 'slack_webapi_platform_error',
    data: { ok: false, error: code },
  });

describe('failureSentence', () => {
  it('passes a user mistake or a refusal through as it is', () => {
    expect(failureSentence(new InputError('The page must be a whole number.'), 8)).toBe(
      'The page must be a whole number.',
    );
    expect(failureSentence(new RefusedError('Only editors may do that.'), 8)).toBe(
      'Only editors may do that.',
    );
  });

  it('says "inside the app" for a fault of our own, without its message', () => {
    const sentence = failureSentence(new TypeError('Cannot read properties of undefined'), 8);
    expect(sentence).toMatch(/^Something went wrong inside the app/);
    expect(sentence).not.toContain('undefined');
  });

  it('names a spent trigger id plainly, and any other Slack refusal by its code', () => {
    expect(failureSentence(slackError('expired_trigger_id'), 8)).toMatch(/three seconds/);
    expect(failureSentence(slackError('channel_not_found'), 8)).toContain('`channel_not_found`');
    expect(failureSentence(slackError('<!channel>'), 8)).not.toContain('<');
  });

  it('tells a timed-out update that it may or may not have been applied', () => {
    const error = new CometChatError({
      kind: 'timeout',
      ref: 'r1',
      operation: 'setRolePermissions',
    });
    expect(failureSentence(error, 8)).toMatch(/may or may not have been applied/);
    expect(
      failureSentence(new CometChatError({ kind: 'timeout', ref: 'r2', operation: 'getCall' }), 8),
    ).toMatch(/within 8 seconds/);
  });

  it('names the app of one of several, and the setting of its refused key', () => {
    const prod = { name: 'prod', settingPrefix: 'COMETCHAT_PROD_' };
    const refused = new CometChatError({ kind: 'unauthorized', ref: 'r3', operation: 'listRoles' });
    expect(failureSentence(refused, 8)).toContain('COMETCHAT_API_KEY is');
    const sentence = failureSentence(refused.forApp(prod), 8);
    expect(sentence).toMatch(/^prod: CometChat refused/);
    expect(sentence).toContain('COMETCHAT_PROD_API_KEY is');
    const missing = new CometChatError({ kind: 'not_found', ref: 'r4', operation: 'listRoles' });
    expect(failureSentence(missing.forApp(prod), 8)).toContain('`/cometchat prod roles`');
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
