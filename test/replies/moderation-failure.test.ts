import { describe, expect, it } from 'vitest';
import { CometChatError } from '../../src/cometchat/errors.ts';
import { failureSentence } from '../../src/replies/failure.ts';
import { notWaitingSentence } from '../../src/replies/sentences.ts';

// The sentences of the moderation requests' failures: a message decided already (or unknown),
// a rule that does not exist, and a decision CometChat may have taken without confirming it.

const DEPS = { budgetSeconds: 8, secrets: [] };

function notFound(operation: string, serviceCode: string) {
  return new CometChatError({ kind: 'not_found', ref: 'r', operation, status: 404, serviceCode });
}

describe('moderation failures', () => {
  it('says a message may have been decided already, for either queue', () => {
    for (const operation of ['decideFlaggedMessage', 'decideBlockedMessage']) {
      expect(failureSentence(notFound(operation, 'ERR_MESSAGE_ID_NOT_FOUND'), DEPS)).toBe(
        'That message is no longer waiting for a decision (`ERR_MESSAGE_ID_NOT_FOUND`): it was decided already, or there is no such message, so nothing was changed. Run `/cometchat moderation` to see what waits.',
      );
    }
  });

  it('says a decided message in the one sentence every reader of the queue uses', () => {
    const prod = notFound('decideFlaggedMessage', 'ERR_MESSAGE_ID_NOT_FOUND').forApp({
      name: 'prod',
      settingPrefix: 'COMETCHAT_PROD_',
    });
    expect(failureSentence(prod, DEPS)).toContain(
      notWaitingSentence(undefined, {
        app: 'prod',
        serviceCode: ' (`ERR_MESSAGE_ID_NOT_FOUND`)',
      }),
    );
    expect(failureSentence(prod, DEPS)).toContain('`/cometchat prod moderation`');
  });

  it('says a rule does not exist, naming the app when there are several', () => {
    for (const operation of ['getRule', 'updateRule', 'listRuleRevisions']) {
      expect(failureSentence(notFound(operation, 'ERR_RULE_NOT_FOUND'), DEPS)).toBe(
        'CometChat has no moderation rule with that id (`ERR_RULE_NOT_FOUND`). Check the id with `/cometchat rules`.',
      );
    }
    const prod = notFound('getRule', 'ERR_RULE_NOT_FOUND').forApp({
      name: 'prod',
      settingPrefix: 'COMETCHAT_PROD_',
    });
    expect(failureSentence(prod, DEPS)).toContain('`/cometchat prod rules`');
  });

  it('says a decision left unconfirmed may have been taken, and where to look', () => {
    const lost = new CometChatError({
      kind: 'unavailable',
      ref: 'r',
      operation: 'decideBlockedMessage',
      status: 502,
      mayHaveReached: true,
    });
    expect(failureSentence(lost, DEPS)).toBe(
      'CometChat did not confirm the decision on the blocked message (HTTP 502), so it may or may not have been applied. Look at `/cometchat moderation` to check before retrying.',
    );
  });
});
