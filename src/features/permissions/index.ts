import type { Logger } from 'pino';
import { noWords, roleWord } from '../command.ts';
import type { AppDeps, EditorOpener, SharedDeps } from '../deps.ts';
import { type Feature, Refusal, subcommand } from '../feature.ts';
import { homeApprovalBlocks } from './approval-view.ts';
import {
  createApprovalsCommand,
  expireApprovals,
  registerApprovals,
  requestsFor,
} from './approvals.ts';
import { type EditorDeps, LOADING_VIEW_AFTER_MS } from './editor-context.ts';
import { createEditorOpener, registerPermissionEditor } from './permission-editor.ts';

export { roleChangeReview } from './role-change.ts';
export { userChangeReview } from './user-change.ts';

/**
 * "Review changes" answers Slack within this many milliseconds of reaching the app, whatever the
 * access check and the store do: Slack allows three seconds from the click, network included.
 */
const REVIEW_DEADLINE_MS = 2_000;

const PERMS_USAGE = '`/cometchat perms &lt;role&gt;`';
const APPROVALS_USAGE = '`/cometchat approvals`';

function editorDeps(deps: AppDeps): EditorDeps {
  return {
    ...deps,
    reviewDeadlineMs: REVIEW_DEADLINE_MS,
    loadingViewAfterMs: LOADING_VIEW_AFTER_MS,
  };
}

/** `perms <role>`: the role id. */
export function parsePermsWords(words: readonly string[]): string | Refusal {
  const [role, ...extra] = words;
  if (role === undefined || extra.length > 0) {
    return new Refusal(`Usage: ${PERMS_USAGE}, for example \`/cometchat perms default\`.`);
  }
  return roleWord(role);
}

/** The editor, opened from the Home tab (its own checks apply). */
export function editorOpener(deps: AppDeps): EditorOpener {
  return createEditorOpener(editorDeps(deps));
}

/** The Home tab's approvals: those waiting for this person (with buttons), and their own. */
export function homeApprovals(deps: Pick<SharedDeps, 'store' | 'apps' | 'now'>) {
  return async (userId: string, log: Logger) => {
    const { waiting, own } = await requestsFor(deps, userId, { log });
    return homeApprovalBlocks(waiting, own);
  };
}

export const permissions: Feature = {
  subcommands: [
    subcommand({
      names: ['perms', 'permissions'],
      usage: `${PERMS_USAGE} - edit a role's permissions (alias \`permissions\`)`,
      parse: parsePermsWords,
      run: (role, { body, scope, app, deps }) =>
        editorOpener(deps)(body.trigger_id, app, role, body.user_id, scope),
    }),
    subcommand({
      names: ['approvals'],
      usage: `${APPROVALS_USAGE} - the permission changes waiting for your approval (when an app asks for approvals)`,
      parse: noWords(APPROVALS_USAGE),
      run: (_, { body, scope, deps }) =>
        createApprovalsCommand(editorDeps(deps))(body, body.user_id, scope),
    }),
  ],
  register(bolt, deps) {
    registerPermissionEditor(bolt, editorDeps(deps));
    registerApprovals(bolt, editorDeps(deps));
  },
  // Requests past their expiry are closed on time, once across replicas.
  periodic: (deps, log) => expireApprovals(deps, deps.client, log),
};
