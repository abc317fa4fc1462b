import type { BlockAction, ButtonAction } from '@slack/bolt';
import { ACTIONS } from '../../slack/ids.ts';
import { roleWord } from '../command.ts';
import type { AppDeps } from '../deps.ts';
import { type Feature, Refusal, subcommand } from '../feature.ts';
import { type EditorDeps, LOADING_VIEW_AFTER_MS } from './editor-context.ts';
import type { ScopeRef } from './editor-state.ts';
import { createEditorOpener, registerPermissionEditor } from './permission-editor.ts';
import { createEditScopeButton, openScopeEditor, scopeWords } from './scope-editor.ts';

// The permission editor: a role's permissions, or a group's scope's, category by category,
// reviewed as one change that the road of every change (src/changes) applies or asks approval for.

/**
 * "Review changes" answers Slack within this many milliseconds of reaching the app, whatever the
 * access check and the store do: Slack allows three seconds from the click, network included.
 */
const REVIEW_DEADLINE_MS = 2_000;

const PERMS_USAGE =
  '`/cometchat perms &lt;role&gt;` or `/cometchat perms &lt;guid&gt; &lt;scope&gt;`';

function editorDeps(deps: AppDeps): EditorDeps {
  return {
    ...deps,
    reviewDeadlineMs: REVIEW_DEADLINE_MS,
    loadingViewAfterMs: LOADING_VIEW_AFTER_MS,
  };
}

/** `perms <role>`: the role id; `perms <guid> <scope>`: a group's scope (two words). */
export function parsePermsWords(words: readonly string[]): string | ScopeRef | Refusal {
  const [first, second, ...extra] = words;
  if (first === undefined || extra.length > 0) {
    return new Refusal(
      `Usage: ${PERMS_USAGE}, for example \`/cometchat perms default\` or \`/cometchat perms hiking moderator\`.`,
    );
  }
  return second === undefined ? roleWord(first) : scopeWords(first, second);
}

/** The editor, opened from the Home tab (its own checks apply). */
export function editorOpener(deps: AppDeps) {
  return createEditorOpener(editorDeps(deps));
}

export const permissions: Feature = {
  subcommands: [
    subcommand({
      names: ['perms', 'permissions'],
      usage: `${PERMS_USAGE} - edit a role's permissions, or a group's scope's (alias \`permissions\`)`,
      parse: parsePermsWords,
      run: (target, { body, app, deps }) =>
        typeof target === 'string'
          ? editorOpener(deps)(body.trigger_id, app, target, body.user_id)
          : openScopeEditor(
              editorDeps(deps),
              { triggerId: body.trigger_id, app, userId: body.user_id },
              target,
            ),
    }),
  ],
  register(bolt, deps) {
    registerPermissionEditor(bolt, editorDeps(deps));
    // The group card's buttons, one per scope (the groups feature draws them, their ids
    // ACTIONS.editScopePermissions followed by `:<scope>`, their value the guid and the scope).
    bolt.action<BlockAction<ButtonAction>>(
      new RegExp(`^${ACTIONS.editScopePermissions}(:|$)`),
      createEditScopeButton(editorDeps(deps)),
    );
  },
};
