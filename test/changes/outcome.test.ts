import { describe, expect, it } from 'vitest';
import { METADATA_LIMIT, type PermissionsChange } from '../../src/changes/change.ts';
import { appliedText, applyNotice } from '../../src/changes/outcome.ts';
import { promotionMetadata } from '../../src/changes/promote.ts';
import { AUDIT_NOT_STORED } from '../../src/changes/views.ts';

// "Apply" without Slack: what the modal says for a change not sent, what the result carries for
// promotion, and the message sent when the modal cannot show the result.

const meta: PermissionsChange = {
  kind: 'permissions',
  role: 'default',
  id: 'a'.repeat(24),
  changes: [
    { key: 'sendMessage', before: 'allow', after: 'deny', explicit: false },
    { key: 'joinGroup', before: 'allow', after: 'allow', explicit: true },
  ],
  seenAt: 5_000,
};

describe('applyNotice', () => {
  it('says the refusal as it came', () => {
    expect(applyNotice({ kind: 'refused', sentence: 'Only editors.' }, meta, {}, 'r1')).toEqual({
      title: 'Not allowed',
      sentence: 'Only editors.',
    });
  });

  it('gives a change not sent its reference', () => {
    const outcome = { kind: 'not-sent' as const, error: new Error('down'), sentence: 'Nothing.' };
    expect(applyNotice(outcome, meta, {}, 'ref0000001')).toEqual({
      title: 'Not sent',
      sentence: 'Nothing. (ref ref0000001)',
    });
  });

  it('says a repeated confirmation was not sent again, naming the role and app', () => {
    const said = applyNotice({ kind: 'repeated' }, meta, { appName: 'prod' }, 'r1');
    expect(said.title).toBe('Already applied');
    expect(said.sentence).toContain('`default` in *prod* was already submitted once');
  });

  it('names the user of a user change', () => {
    const change = { ...meta, kind: 'user-role' as const, uid: 'u-1' };
    const said = applyNotice({ kind: 'repeated' }, change, {}, 'r1');
    expect(said.sentence).toContain('This change to user `u-1` was already submitted once');
  });
});

describe('promotionMetadata', () => {
  it('carries the role, the reference and each key with its new value only', () => {
    const metadata = promotionMetadata(meta, 'ref0000001', {});
    expect(JSON.parse(metadata ?? '')).toEqual({
      role: 'default',
      ref: 'ref0000001',
      changes: [
        { key: 'sendMessage', after: 'deny' },
        { key: 'joinGroup', after: 'allow' },
      ],
    });
  });

  it("is written by the app's writer (signed when several apps are configured)", () => {
    const write = (payload: Record<string, unknown>) => `signature.${JSON.stringify(payload)}`;
    expect(promotionMetadata(meta, 'r1', { write })).toMatch(/^signature\.\{"role":"default"/);
  });

  it('is left out when too large to carry back, so a promotion is never offered half', () => {
    const many = {
      ...meta,
      changes: Array.from({ length: 200 }, (_, i) => ({
        key: `customKey${i}`,
        before: undefined,
        after: 'deny',
        explicit: false,
      })),
    };
    expect(JSON.stringify(many).length).toBeGreaterThan(METADATA_LIMIT);
    expect(promotionMetadata(many, 'r1', {})).toBeUndefined();
  });
});

describe('appliedText', () => {
  it('names the count, the role, the app and each key', () => {
    expect(appliedText(meta, { appName: 'prod' }, true)).toBe(
      'Applied 2 changes to `default` in *prod*: *Message Sending* (`sendMessage`), *Group Joining* (`joinGroup`).',
    );
  });

  it('says so when the audit record was not stored', () => {
    const one = { ...meta, changes: meta.changes.slice(0, 1) };
    expect(appliedText(one, {}, false)).toBe(
      `Applied 1 change to \`default\`: *Message Sending* (\`sendMessage\`). ${AUDIT_NOT_STORED}`,
    );
  });
});
