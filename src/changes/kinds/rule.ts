import { isCometChatError } from '../../cometchat/errors.ts';
import type { ModerationOperations, ModerationRule } from '../../cometchat/moderation-model.ts';
import { ChangeNotTaken } from '../../replies/failure.ts';
import { code } from '../../slack/mrkdwn.ts';
import type { RuleChange } from '../change.ts';
import { type Kind, NO_FACTS } from './kind.ts';
import { ruleDifferences, ruleFromValues, ruleUpdateOf } from './rule-fields.ts';

// A moderation rule, replaced whole by one PUT (CometChat's `updateRule`): every field from
// before to after, so that the same change can be sent again and its inverse is the "before".
// "Is it still as reviewed?" is asked of the rule as CometChat has it now.

export function ruleKind(change: RuleChange): Kind {
  const id = change.role;
  const side = (which: 'before' | 'after') =>
    ruleFromValues(id, Object.fromEntries(change.changes.map((c) => [c.key, c[which]])));
  return {
    target: `rule:${id}`,
    name: `rule ${code(id)}`,
    done: 'replaced as reviewed',
    outOfDate: `The rule ${code(id)} changed since the review, so nothing was sent. \`/cometchat rules\` shows the rules as CometChat has them now.`,
    logged: 'rule replaced',
    async send(client) {
      const rule = side('after');
      if (!rule) throw new ChangeNotTaken(`rule ${code(id)}`, NOT_A_RULE);
      const answer = await client.updateRule(rule);
      if (ruleDifferences(ruleUpdateOf(answer), rule).length > 0) {
        throw new RuleAnsweredOtherwise(`rule ${code(id)}`, answer.revisionId);
      }
      const message = `rule ${id} replaced (revision ${answer.revisionId})`;
      return { results: { rule: { success: true, message } }, revision: answer.revisionId };
    },
    async sinceReview(reads) {
      const now = await ruleIfAny(reads.app.cometchat, id);
      const before = side('before');
      const after = side('after');
      if (!now) return { changed: true, why: gone(id), has: false };
      const same = (rule: typeof before) =>
        rule !== undefined && ruleDifferences(ruleUpdateOf(now), rule).length === 0;
      return { changed: !same(before), has: same(after) };
    },
    recordFacts: NO_FACTS,
  };
}

const NOT_A_RULE = {
  plain: 'was not asked: the change does not hold a whole rule',
  mrkdwn: 'was not asked: the change does not hold a whole rule',
};

/**
 * CometChat answered the PUT with a rule other than was sent (it may have normalised the
 * conditions, or another change came between): the PUT may well have replaced the rule, so the
 * outcome is unknown (a partial ChangeNotTaken), never "did not take". The answered revision
 * rides along, so that the road remembers it as this app's (the daily check then does not
 * report it as made outside).
 */
export class RuleAnsweredOtherwise extends ChangeNotTaken {
  constructor(
    subject: string,
    readonly revision: string,
  ) {
    super(subject, OTHER_ANSWER, true);
  }
}

const OTHER_ANSWER = {
  plain: 'answered with another rule than was sent (it may have replaced the rule all the same)',
  mrkdwn:
    'answered with another rule than was sent (it may have replaced the rule all the same; `/cometchat rules` shows it now)',
};

function gone(id: string): string {
  return `There is no rule ${code(id)} any more, so nothing was sent.`;
}

/** The rule as CometChat has it now; undefined when it has no such rule. */
export async function ruleIfAny(
  client: Pick<ModerationOperations, 'getRule'>,
  id: string,
): Promise<ModerationRule | undefined> {
  try {
    return await client.getRule(id);
  } catch (error) {
    if (isCometChatError(error) && error.kind === 'not_found') return undefined;
    throw error;
  }
}
