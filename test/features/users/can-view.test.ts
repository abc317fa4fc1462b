import { describe, expect, it } from 'vitest';
import type { CanStep } from '../../../src/features/users/can.ts';
import { canMessage, stepLine } from '../../../src/features/users/can-view.ts';
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
