import { describe, expect, it } from 'vitest';
import { REJECT_BLOCK, REJECT_INPUT } from '../../src/changes/approval-view.ts';
import { rejectReasonOf } from '../../src/changes/approvals.ts';

// The reason a rejection gives, read from the modal's form: required, for the requester.

const typed = (value: string | null) => ({
  [REJECT_BLOCK]: { [REJECT_INPUT]: { type: 'plain_text_input' as const, value } },
});

describe('rejectReasonOf', () => {
  it('is the typed reason, trimmed', () => {
    expect(rejectReasonOf(typed('  not now \n'))).toBe('not now');
  });

  it('is undefined when none was given, so the modal asks for one', () => {
    expect(rejectReasonOf(typed('  '))).toBeUndefined();
    expect(rejectReasonOf(typed(null))).toBeUndefined();
    expect(rejectReasonOf({})).toBeUndefined();
  });
});
