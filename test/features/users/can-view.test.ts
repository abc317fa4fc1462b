import { describe, expect, it } from 'vitest';
import type { CanStep } from '../../../src/features/users/can.ts';
import { canMessage, conclusionLine, stepLine } from '../../../src/features/users/can-view.ts';
import { slackDate } from '../../../src/slack/mrkdwn.ts';

const SEEN = 1_700_000_000_000;
const date = slackDate(SEEN / 1000);

/** The action's step, its value taken from the role's last known map. */
function fromTheMap(ref?: string): CanStep {
  return {
    rule: 'the action',
    key: 'sendMessage',
    value: 'allow',
    source: { kind: 'last-update', seenAt: SEEN, ...(ref === undefined ? {} : { ref }) },
    verdict: 'passes',
    because: 'role `admin` is allowed it',
  };
}

describe('stepLine', () => {
  it('names the reference of the change that set the map, as a code span after its date', () => {
    expect(stepLine(fromTheMap('0a1b2c3d4e'))).toBe(
      `:white_check_mark: *the action* *Message Sending* (\`sendMessage\`) = \`allow\` (as this app last set the role, ${date} (ref \`0a1b2c3d4e\`)): role \`admin\` is allowed it`,
    );
  });

  it('gives the date alone for a map an earlier version stored without a reference', () => {
    const line = stepLine(fromTheMap());
    expect(line).toBe(
      `:white_check_mark: *the action* *Message Sending* (\`sendMessage\`) = \`allow\` (as this app last set the role, ${date}): role \`admin\` is allowed it`,
    );
    expect(line).not.toContain('ref');
  });

  it('says the documented default, and unknown, as before', () => {
    const step = fromTheMap();
    expect(stepLine({ ...step, source: { kind: 'default' } })).toContain(
      '(the documented default)',
    );
    expect(stepLine({ ...step, source: { kind: 'unknown' } })).toContain('(unknown)');
  });
});

describe('canMessage', () => {
  it("shows the reference in the walk's lines", () => {
    const message = canMessage(
      { uid: 'alice', action: 'sendMessage' },
      { steps: [fromTheMap('0a1b2c3d4e')], conclusion: { kind: 'allowed' } },
    );
    expect(JSON.stringify(message.blocks)).toContain('(ref `0a1b2c3d4e`)');
  });
});

describe('the walk in a group', () => {
  const scopeStep: CanStep = {
    rule: 'the scope',
    key: 'sendMessage',
    value: 'deny',
    source: { kind: 'last-update', seenAt: SEEN, ref: 'ab12cd' },
    verdict: 'denies',
    because: 'scope `participant` is denied it',
    layer: 'scope',
  };

  it("names each step's layer, and the scope's sources as the scope's", () => {
    expect(stepLine(scopeStep)).toBe(
      `:no_entry: *Scope · the scope* *Message Sending* (\`sendMessage\`) = \`deny\` (as this app last set the scope, ${date} (ref \`ab12cd\`)): scope \`participant\` is denied it`,
    );
    expect(stepLine({ ...scopeStep, source: { kind: 'default', listed: true } })).toContain(
      '(the default CometChat lists for the scope)',
    );
    // The shipped keys standing in for a list that could not be read: the documented default.
    expect(stepLine({ ...scopeStep, source: { kind: 'default' } })).toContain(
      '(the documented default)',
    );
    // A role's step in the same walk keeps the role's sentences.
    expect(stepLine({ ...fromTheMap(), layer: 'role' })).toContain(
      `*Role · the action* *Message Sending* (\`sendMessage\`) = \`allow\` (as this app last set the role, ${date})`,
    );
    // The group's facts are CometChat's.
    expect(
      stepLine({
        rule: 'a ban',
        verdict: 'passes',
        because: 'not on the banned list',
        layer: 'group',
      }),
    ).toBe(':white_check_mark: *Group · a ban* (from CometChat): not on the banned list');
  });

  it('says in which layer a denial is, with or without a key', () => {
    expect(
      conclusionLine({
        kind: 'denied',
        key: 'sendMessage',
        value: 'deny',
        why: 'scope `participant` is denied it',
        layer: 'scope',
      }),
    ).toBe(
      ":no_entry: *Denied by* *Message Sending* (`sendMessage`) = `deny` in the member's scope's permissions in the group: scope `participant` is denied it.",
    );
    expect(conclusionLine({ kind: 'denied', why: 'banned from the group', layer: 'group' })).toBe(
      ':no_entry: *Denied* in the group: banned from the group.',
    );
  });

  it('asks the question in the group, in the title, the text and the context', () => {
    const message = canMessage(
      { uid: 'alice', action: 'sendMessage', group: 'hiking' },
      { steps: [scopeStep], conclusion: { kind: 'allowed' } },
    );
    expect(message.text).toBe(
      'Can `alice` `sendMessage` in group `hiking`? :white_check_mark: *Allowed.*',
    );
    const blocks = JSON.stringify(message.blocks);
    expect(blocks).toContain('Can alice sendMessage in hiking?');
    expect(blocks).toContain("the walk of CometChat's two layers");
  });
});
