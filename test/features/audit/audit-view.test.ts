import type { KnownBlock, TableBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { assertWithinLimits } from '../../../offline/slack-standin/block-kit-limits.ts';
import { cellText } from '../../../offline/stack/terminal-render.ts';
import {
  AUDIT_PER_PAGE,
  auditMessage,
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

describe("a change to a user's role", () => {
  const userChange: AuditRecord = {
    ...approved,
    role: 'premium',
    subject: { kind: 'user', uid: 'cometchat-uid-4' },
    changes: [{ key: 'role', before: 'premium', after: 'vip', explicit: false }],
    beforeSource: 'service',
  };

  it('is shown as such in the trail, the post and the Home line: the user, then their role', () => {
    for (const text of [auditRecordText(userChange), auditSummaryLine(userChange)]) {
      expect(text).toContain('user `cometchat-uid-4` (role `premium`)');
    }
    expect(auditPost(userChange).text).toMatch(/^User `cometchat-uid-4` changed by user U0ASKER/);
    expect(auditRecordText(userChange)).not.toContain('documented defaults');
  });
});

describe('role ids in the trail and the audit post', () => {
  const roleList: AuditRecord = {
    ...approved,
    role: 'beta_tester',
    changes: [
      {
        key: 'sendMessage.allowedReceiverRoles',
        before: ['admin'],
        after: ['admin', 'beta_tester'],
        explicit: false,
      },
      { key: 'listUsers.allowedRoles', before: null, after: ['vip_1'], explicit: true },
      { key: 'sendMessage.allowedCustomTypes', before: null, after: ['*x_y*'], explicit: false },
    ],
    promotedFrom: 'ref_0',
    serviceMessage: 'role *beta_tester* updated',
  };

  it('are code a reader can copy exactly, one span each, with no zero-width space', () => {
    const text = auditRecordText(roleList);
    expect(text).toContain(
      '*Message Receiver Roles* (`sendMessage.allowedReceiverRoles`): `admin` → `admin`, `beta_tester`',
    );
    expect(text).toContain(
      '*User Listing Role Filter* (`listUsers.allowedRoles`): `vip_1` _(stated explicitly)_',
    );
    expect(text).toContain('_Promoted from the change with ref `ref_0`._');
    const idLines = text.split('\n').filter((l) => /Roles`|Promoted/.test(l));
    expect(idLines).toHaveLength(3);
    for (const line of idLines) expect(line).not.toContain('\u200B');
    expect(JSON.stringify(auditPost(roleList).blocks)).toContain('`admin`, `beta_tester`');
  });

  it('leave free text and values that are not role ids escaped', () => {
    const text = auditRecordText(roleList);
    expect(text).toContain(
      '*Message Sending Custom Types* (`sendMessage.allowedCustomTypes`): no restriction → \u200B*\u200Bx\u200B_\u200By\u200B*\u200B',
    );
    expect(text).toContain(
      'CometChat: role \u200B*\u200Bbeta\u200B_\u200Btester\u200B*\u200B updated',
    );
  });

  it("shows a user's role before and after as code", () => {
    const text = auditRecordText({
      ...approved,
      role: 'beta_tester',
      subject: { kind: 'user', uid: 'cometchat-uid_4' },
      changes: [{ key: 'role', before: 'beta_tester', after: 'super_admin', explicit: false }],
    });
    expect(text).toContain('user `cometchat-uid_4` (role `beta_tester`)');
    expect(text).toContain('`role`: `beta_tester` → `super_admin`');
  });

  it('keeps whole role ids when a long list is cut', () => {
    const ids = Array.from({ length: 30 }, (_, i) => `role_${i}`);
    const text = auditRecordText({
      ...roleList,
      changes: [{ key: 'listUsers.allowedRoles', before: null, after: ids, explicit: false }],
    });
    const line =
      text
        .split('\n')
        .find((l) => l.startsWith('*User Listing Role Filter* (`listUsers.allowedRoles`)')) ?? '';
    expect(line).toMatch(/`role_\d+`, …$/);
    expect(line).toContain('`role_0`, `role_1`');
    expect(line).not.toContain('role_29');
  });
});

/** The message's tables, and the one table's rows as the text each cell shows. */
function tableOf(blocks: readonly KnownBlock[] = []) {
  const tables = blocks.filter((b): b is TableBlock => b.type === 'table');
  return { tables, rows: (tables[0]?.rows ?? []).map((row) => row.map(cellText)) };
}

describe('the audit list', () => {
  const failed: AuditRecord = {
    ...approved,
    ref: 'ref-2',
    at: 1_700_000_600_000,
    role: 'cometchat_uid_1*x',
    changes: [
      { key: 'sendMessage', before: 'allow', after: 'deny', explicit: false },
      { key: 'listUsers', before: null, after: ['friends'], explicit: true },
    ],
    outcome: 'failed',
    serviceMessage: '<!channel> *down* <https://evil.example|here>',
    promotedFrom: 'ref-0',
    beforeSource: 'defaults',
  };
  const { approval: _approval, ...direct } = failed;

  it('is one table: when, who, role, changes, outcome and reference a record each', () => {
    const message = auditMessage({ records: [direct, approved], total: 2 }, { page: 1 });
    const { tables, rows } = tableOf(message.blocks);
    expect(tables).toHaveLength(1);
    expect(rows).toEqual([
      ['When', 'Who', 'Role', 'Changes', 'Outcome', 'Reference'],
      [
        '2023-11-14 22:23',
        '@U0ASKER',
        'cometchat_uid_1*x',
        [
          'Message Sending (sendMessage): allow → deny',
          'User Listing (listUsers): friends (stated explicitly)',
          'Promoted from the change with ref ref-0.',
          'CometChat: <!channel> *down* <https://evil.example|here>',
          '“Before” values were the documented defaults, not read from CometChat.',
        ].join('\n'),
        '✘ failed',
        'ref-2',
      ],
      [
        '2023-11-14 22:13',
        '@U0ASKER (approved by @U0APPROVER)',
        'default',
        'Message Sending (sendMessage): allow → deny',
        '✔ applied',
        'ref-1',
      ],
    ]);
    assertWithinLimits('message', message);
  });

  it("names people as Slack's user elements, and nothing from outside can mention or link", () => {
    const message = auditMessage({ records: [failed], total: 1 }, { page: 1 });
    const json = JSON.stringify(message.blocks);
    expect(json).toContain('{"type":"user","user_id":"U0ASKER"}');
    expect(json).toContain('{"type":"user","user_id":"U0APPROVER"}');
    // No mrkdwn anywhere in the table; its only mentions are those two elements.
    expect(json).not.toMatch(/<@|&lt;|\u200b/);
    const kinds = new Set<string>();
    JSON.stringify(tableOf(message.blocks).tables, (_key, value: unknown) => {
      const type = (value as { type?: unknown } | null)?.type;
      if (typeof type === 'string') kinds.add(type);
      return value;
    });
    expect(
      [...kinds].filter((k) => ['broadcast', 'link', 'channel', 'usergroup'].includes(k)),
    ).toEqual([]);
  });

  it('shows an id that is not a Slack user as text, not as a mention', () => {
    const odd = { ...direct, userId: '<!channel>' };
    const message = auditMessage({ records: [odd], total: 1 }, { page: 1 });
    expect(tableOf(message.blocks).rows[1]?.[1]).toBe('<!channel>');
    expect(JSON.stringify(message.blocks)).not.toContain('"type":"user"');
  });

  it('adds a User column, the uid exactly, when a record of the page changed a user', () => {
    const user: AuditRecord = { ...direct, subject: { kind: 'user', uid: 'cometchat_uid_1*x' } };
    const message = auditMessage({ records: [user, approved], total: 2 }, { page: 1 });
    const { rows } = tableOf(message.blocks);
    expect(rows[0]).toEqual(['When', 'Who', 'Role', 'User', 'Changes', 'Outcome', 'Reference']);
    expect(rows.slice(1).map((row) => row[3])).toEqual(['cometchat_uid_1*x', '—']);
    expect(
      tableOf(auditMessage({ records: [approved], total: 1 }, { page: 1 }).blocks).rows[0],
    ).not.toContain('User');
  });

  it('keeps the sentence, and no table, when there is nothing to list', () => {
    const none = auditMessage({ records: [], total: 0 }, { role: 'admin', page: 1 });
    expect(tableOf(none.blocks).tables).toEqual([]);
    expect(JSON.stringify(none.blocks)).toContain('No change has been recorded for `admin` yet.');
  });

  it('stays within Slack limits with a full page of the longest records', () => {
    const long: AuditRecord = {
      ...failed,
      role: 'r'.repeat(100),
      changes: Array.from({ length: 40 }, (_, i) => ({
        key: `key${i}${'k'.repeat(60)}`,
        before: Array.from({ length: 30 }, () => 'before-value'),
        after: 'a'.repeat(500),
        explicit: false,
      })),
      serviceMessage: 'm'.repeat(5000),
      promotedFrom: 'p'.repeat(500),
    };
    const records = Array.from({ length: AUDIT_PER_PAGE }, () => long);
    const message = auditMessage({ records, total: 40 }, { page: 2 });
    assertWithinLimits('message', message);
    expect(tableOf(message.blocks).rows).toHaveLength(AUDIT_PER_PAGE + 1);
  });
});

describe('a key put back to the default (issue 32, item 3)', () => {
  const unset: AuditRecord = {
    ...approved,
    changes: [{ key: 'sendMessage', before: 'deny', after: 'allow', explicit: false, unset: true }],
  };

  it('is said so in the trail, the post and the list', () => {
    expect(auditRecordText(unset)).toContain(
      '*Message Sending* (`sendMessage`): deny → allow _(back to the default)_',
    );
    expect(JSON.stringify(auditPost(unset).blocks)).toContain('(back to the default)');
    const { rows } = tableOf(auditMessage({ records: [unset], total: 1 }, { page: 1 }).blocks);
    expect(rows[1]?.[3]).toBe('Message Sending (sendMessage): deny → allow (back to the default)');
  });
});
