import type { View } from '@slack/types';
import { context, plain, section } from '../../slack/blocks.ts';
import { CALLBACKS } from '../../slack/ids.ts';
import { chunkedSections, reasonInput } from './editor-view.ts';

// The confirmation of a change to a user or to a role itself: one question, the lines under it,
// and "Apply", or "Request approval" with a reason where the app asks for approvals. The same
// callback as the editor's confirmation, so the same flows apply and audit it.

export interface SubjectReview {
  /** The modal's title when no approval is asked for. */
  title: string;
  /** What the confirmation asks, in mrkdwn. */
  question: string;
  details?: readonly string[] | undefined;
  /** Under the lines: when what the review shows is checked again. */
  note: string;
  privateMetadata: string;
  approvalChannel: string | undefined;
}

/** The confirmation modal. Pure. */
export function subjectReviewView(review: SubjectReview): View {
  const { approvalChannel } = review;
  const asked = approvalChannel
    ? `Ask for approval in <#${approvalChannel}>: ${review.question} Nothing is sent until another person approves.`
    : review.question;
  return {
    type: 'modal',
    callback_id: CALLBACKS.permissionsConfirm,
    title: plain(approvalChannel ? 'Request approval' : review.title, 24),
    submit: plain(approvalChannel ? 'Request approval' : 'Apply', 24),
    close: plain('Cancel', 24),
    private_metadata: review.privateMetadata,
    blocks: [
      section(asked),
      ...chunkedSections([...(review.details ?? [])]),
      context([review.note]),
      ...(approvalChannel ? [reasonInput()] : []),
    ],
  };
}
