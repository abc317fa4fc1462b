import { roleWord } from '../command.ts';
import type { AppDeps } from '../deps.ts';
import { type Feature, Refusal, subcommand } from '../feature.ts';
import { type EditorDeps, LOADING_VIEW_AFTER_MS } from './editor-context.ts';
import { createEditorOpener, registerPermissionEditor } from './permission-editor.ts';

// The permission editor: a role's permissions, category by category, reviewed as one change
// that the road of every change (src/changes) applies or asks approval for.

/**
 * "Review changes" answers Slack within this many milliseconds of reaching the app, whatever the
 * access check and the store do: Slack allows three seconds from the click, network included.
 */
const REVIEW_DEADLINE_MS = 2_000;

const PERMS_USAGE = '`/cometchat perms &lt;role&gt;`';

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
export function editorOpener(deps: AppDeps) {
  return createEditorOpener(editorDeps(deps));
}

export const permissions: Feature = {
  subcommands: [
    subcommand({
      names: ['perms', 'permissions'],
      usage: `${PERMS_USAGE} - edit a role's permissions (alias \`permissions\`)`,
      parse: parsePermsWords,
      run: (role, { body, app, deps }) =>
        editorOpener(deps)(body.trigger_id, app, role, body.user_id),
    }),
  ],
  register(bolt, deps) {
    registerPermissionEditor(bolt, editorDeps(deps));
  },
};
