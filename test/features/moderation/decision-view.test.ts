import { describe, expect, it } from 'vitest';
import { checkView } from '../../../offline/slack-standin/block-kit-limits.ts';
import { decodeChange } from '../../../src/changes/change.ts';
import {
  BulkValueSchema,
  bulkPickView,
  bulkProblem,
  bulkReviewView,
  carried,
  decisionReview,
} from '../../../src/features/moderation/decision-view.ts';
import { decisionProblem } from '../../../src/features/moderation/listeners.ts';
import { blocked, flagged, SECRET_TEXT } from './fixtures.ts';

const plainWrite = (payload: Record<string, unknown>) => JSON.stringify(payload);
const where = { write: plainWrite, origin: 'V0REVIEW', app: 'default' };

describe('the review of one decision', () => {
  it('carries the change for the road, and shows the moderator the text', () => {
    const view = decisionReview(flagged('f1', 100), 'approve', where, undefined);
    expect(view.callback_id).toBe('perms_confirm');
    expect(JSON.stringify(view.blocks)).toContain(SECRET_TEXT);
    const change = decodeChange(view.private_metadata);
    expect(change).toMatchObject({
      kind: 'moderation',
      messageId: 'f1',
      queue: 'flagged',
      reasons: ['Spam', 'Abuse'],
      changes: [{ key: 'status', before: 'flagged', after: 'approved' }],
    });
    // The metadata never holds the text.
    expect(view.private_metadata).not.toContain(SECRET_TEXT);
    expect(checkView(view)).toEqual([]);
  });

  it('says that delivering cannot be taken back, and that keeping blocked has no Revert', () => {
    const deliver = JSON.stringify(decisionReview(blocked('b1', 1), 'deliver', where, undefined));
    expect(deliver).toContain('This cannot be taken back');
    const keep = JSON.stringify(decisionReview(blocked('b1', 1), 'keep-blocked', where, undefined));
    expect(keep).toContain('no _Revert_');
  });

  it('promises no Revert for a flagged decision, and says why', () => {
    for (const decision of ['approve', 'block'] as const) {
      const text = JSON.stringify(decisionReview(flagged('f1', 1), decision, where, undefined));
      expect(text).not.toMatch(/_Revert_ can/);
      expect(text).toContain(
        'Its record has no _Revert_: CometChat documents no way to decide a reviewed message again.',
      );
    }
    const bulk = bulkReviewView([flagged('f1', 1), flagged('f2', 2)].map(carried), 'block', {
      write: plainWrite,
    });
    expect(JSON.stringify(bulk.blocks)).toContain(
      'Their records have no _Revert_: CometChat documents no way to decide a reviewed message again.',
    );
  });

  it('asks for approval where the app asks for it', () => {
    const view = decisionReview(flagged('f1', 1), 'block', where, 'C0APPROVE');
    expect(view).toMatchObject({ submit: { text: 'Request approval' } });
    expect(JSON.stringify(view.blocks)).toContain('<#C0APPROVE>');
  });

  it('refuses an unknown message, or a decision its queue does not take, in one sentence', () => {
    expect(decisionProblem(undefined, 'nope', 'approve')).toMatch(
      /^Message `nope` is no longer waiting for a decision/,
    );
    expect(decisionProblem(blocked('b1', 1), 'b1', 'approve')).toBe(
      'Message `b1` is blocked now: it takes deliver or keep-blocked. Nothing was sent.',
    );
    expect(decisionProblem(flagged('f1', 1), 'f1', 'block')).toBeUndefined();
  });
});

describe('several at once', () => {
  const items = [flagged('f1', 1), flagged('f2', 2), blocked('b1', 3)];

  it('offers the page to choose from, carrying ids and why, no text', () => {
    const view = bulkPickView(items, plainWrite);
    expect(checkView(view)).toEqual([]);
    const value = BulkValueSchema.parse(JSON.parse(view.private_metadata ?? ''));
    expect(value.items.map((item) => item.m)).toEqual(['f1', 'f2', 'b1']);
    expect(view.private_metadata).not.toContain(SECRET_TEXT);
  });

  it('refuses none chosen, or a decision another queue takes', () => {
    const chosen = items.map(carried);
    expect(bulkProblem([], 'approve')).toBe('Choose at least one message.');
    expect(bulkProblem(chosen, 'approve')).toMatch(
      /^Message b1 is blocked: Approve is for flagged messages/,
    );
    expect(bulkProblem(chosen.slice(0, 2), 'block')).toBeUndefined();
  });

  it('reviews each item and what cannot be taken back', () => {
    const chosen = [blocked('b1', 1), blocked('b2', 2)].map(carried);
    const view = bulkReviewView(chosen, 'deliver', { write: plainWrite });
    const json = JSON.stringify(view.blocks);
    expect(json).toContain('Deliver 2 messages');
    expect(json).toContain('Delivering cannot be taken back');
    expect(json).toContain('`b2`');
    expect(checkView(view)).toEqual([]);
  });
});
