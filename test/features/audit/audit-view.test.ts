import { describe, expect, it } from 'vitest';
import {
  auditPost,
  auditRecordText,
  auditSummaryLine,
} from '../../../src/features/audit/audit-view.ts';
import type { AuditRecord } from '../../../src/store/store.ts';

// The audit trail, the audit channel's post and the Home tab's line show the same facts about a
// record; for an approved change, the second pair of eyes among them.

const approved: AuditRecord = {
  ref: 'ref-1',
  at: 1_700_000_000_000,
  app: 'default',
  teamId: 'T1',
  userId: 'U0ASKER',
  role: 'default',
  changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
  beforeSource: 'last-update',
  outcome: 'applied',
  approval: {
    approvedBy: 'U0APPROVER',
    approvedAt: 1_700_000_100_000,
    requestedAt: 1_700_000_000_000,
  },
};

describe('an approved change', () => {
  it('names who asked and who approved in the trail, the post and the Home line', () => {
    const shown = [
      auditRecordText(approved),
      JSON.stringify(auditPost(approved).blocks),
      auditSummaryLine(approved),
    ];
    for (const text of shown) {
      expect(text).toContain('<@U0ASKER>');
      expect(text).toContain('approved by <@U0APPROVER>');
    }
    expect(auditPost(approved).text).toContain('by user U0ASKER, approved by user U0APPROVER');
  });

  it('names no approver for a change made without approval', () => {
    const { approval: _approval, ...direct } = approved;
    expect(auditRecordText(direct)).not.toContain('approved by');
    expect(auditPost(direct).text).not.toContain('approved by');
  });
});
