import type { KnownBlock } from '@slack/types';
import type { Logger } from 'pino';
import {
  approvalsList,
  completeWaitingSteps,
  expireApprovals,
  homeApprovalBlocks,
  remindApprovals,
  requestsFor,
} from '../../changes/index.ts';
import { noWords } from '../command.ts';
import type { SharedDeps } from '../deps.ts';
import { type Feature, subcommand } from '../feature.ts';
import { asJob } from '../job.ts';

// The approvals waiting for a person: `/cometchat approvals`, the Home tab's part, and the
// reminder and expiry of requests nobody decided. Approving and rejecting are the road's (src/changes).

const USAGE = '`/cometchat approvals`';

/** The Home tab's approvals: those waiting for this person (with buttons), and their own. */
export function homeApprovals(deps: Pick<SharedDeps, 'store' | 'apps' | 'now'>) {
  return async (userId: string, _log: Logger): Promise<KnownBlock[]> => {
    const { waiting, own } = await requestsFor(deps, userId);
    return homeApprovalBlocks(waiting, own);
  };
}

export const approvals: Feature = {
  subcommands: [
    subcommand({
      names: ['approvals'],
      usage: `${USAGE} - the permission changes waiting for your approval (when an app asks for approvals)`,
      parse: noWords(USAGE),
      run: async (_, { body, respond, deps }) => {
        const { waiting } = await requestsFor(deps, body.user_id);
        await respond(approvalsList(waiting));
      },
    }),
  ],
  register() {
    // Its buttons (Approve, Reject) are the road's: registerChanges.
  },
  // Requests past their expiry are closed on time, those waiting long their approvers reminded,
  // and the workflow steps of decided requests completed, each once across replicas; one failing
  // does not hold up the others.
  periodic: (deps, log) =>
    Promise.all([
      asJob(
        log,
        { task: 'approval-expiry' },
        (jobLog) => expireApprovals(deps, deps.client, jobLog),
        deps.now,
      ),
      asJob(
        log,
        { task: 'approval-reminders' },
        (jobLog) => remindApprovals(deps, deps.client, jobLog),
        deps.now,
      ),
      asJob(
        log,
        { task: 'workflow-step-completion' },
        (jobLog) => completeWaitingSteps(deps, deps.client, jobLog),
        deps.now,
      ),
    ]),
};
