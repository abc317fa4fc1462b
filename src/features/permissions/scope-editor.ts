import type { View } from '@slack/types';
import { z } from 'zod';
import { type CometChatApp, openSigned } from '../../apps/apps.ts';
import { appLabel, baselineFrom, messageView, scopeName } from '../../changes/index.ts';
import { isCometChatError } from '../../cometchat/errors.ts';
import { GROUP_SCOPES, type Group, type GroupScope } from '../../cometchat/group-model.ts';
import { GuidSchema, guidProblem, storedGuid } from '../../cometchat/id-rules.ts';
import { inApp } from '../../replies/sentences.ts';
import { currentRequest } from '../../request-context.ts';
import type { ButtonArgs } from '../../slack/listener-args.ts';
import { code } from '../../slack/mrkdwn.ts';
import { Refusal } from '../feature.ts';
import type { EditorDeps } from './editor-context.ts';
import { scopeCatalogue } from './editor-reads.ts';
import { newScopeEditorState, type ScopeRef } from './editor-state.ts';
import { editorView } from './editor-view.ts';
import { knownForPrefill, openEditor, PREFILL_UNAVAILABLE } from './permission-editor.ts';

// The permission editor on a group's scope (`admin`, `moderator`, `participant` in one group):
// the same editor as a role's, on the keys CometChat lists for that scope, "before" from the map
// this app last saw for it; its review is a `scope-permissions` change on the road.

/** Whether a word is one of the three scopes. */
export function isGroupScope(word: string): word is GroupScope {
  return GROUP_SCOPES.some((scope) => scope === word);
}

/** Said of a word that is not a scope. */
export const NOT_A_SCOPE = 'A scope is `admin`, `moderator` or `participant`.';

/**
 * A guid and a scope as typed (`/cometchat perms <guid> <scope>`): the guid as CometChat stores
 * it (lower-cased), the scope one of the three; else one sentence. Pure.
 */
export function scopeWords(guid: string, scope: string): ScopeRef | Refusal {
  const stored = storedGuid(guid);
  const problem = guidProblem(stored);
  if (problem) return new Refusal(problem);
  const word = scope.toLowerCase();
  if (!isGroupScope(word)) return new Refusal(NOT_A_SCOPE);
  return { guid: stored, scope: word };
}

/**
 * An _Edit scope permissions_ button's value (ACTIONS.editScopePermissions), as the group card
 * writes it: `signedValue(app, { guid, scope })`.
 */
const ScopeValue = z.object({
  guid: GuidSchema,
  scope: z.enum(GROUP_SCOPES),
});

/** The group as CometChat has it; undefined when it has none of that guid. */
async function groupIfAny(app: CometChatApp, guid: string): Promise<Group | undefined> {
  return app.cometchat.getGroup(guid).catch((error: unknown) => {
    if (isCometChatError(error) && error.kind === 'not_found') return undefined;
    throw error;
  });
}

/** Said when CometChat has no group of that guid: nothing is opened, nothing sent. */
export function unknownGroupSentence(guid: string, appName: string | undefined): string {
  return `CometChat has no group ${code(guid)}${inApp(appName)}. Check the guid with \`/cometchat ${appName ? `${appName} ` : ''}groups\`.`;
}

/**
 * The editor on a group's scope, ready to show: the group, the scope's keys and the last known
 * values, fetched together. A group CometChat does not have gets a sentence instead.
 */
export async function loadScopeEditorView(
  deps: Pick<EditorDeps, 'apps' | 'store'>,
  app: CometChatApp,
  ref: ScopeRef,
): Promise<View> {
  const { log } = currentRequest();
  const label = appLabel(deps.apps, app);
  const [group, catalogue, { known, unavailable }] = await Promise.all([
    groupIfAny(app, ref.guid),
    // Never fails: without the scope's definitions the editor opens on the shipped keys.
    scopeCatalogue(app, ref),
    knownForPrefill(deps, app, newScopeEditorState(ref, undefined).role),
  ]);
  if (!group) {
    log.info({ app: app.name, guid: ref.guid }, 'editor: unknown group');
    return messageView('Edit permissions', unknownGroupSentence(ref.guid, label.appName));
  }
  log.info(
    { app: app.name, guid: ref.guid, scope: ref.scope, known: known !== undefined },
    'scope editor opened',
  );
  return editorView({
    state: newScopeEditorState(ref, catalogue.categories[0], known?.seenAt),
    baseline: baselineFrom(known, catalogue),
    roleName: group.name || group.guid,
    roleIds: [],
    ...label,
    notice: unavailable ? PREFILL_UNAVAILABLE : undefined,
    catalogue,
  });
}

/** Opens the editor on a group's scope for the person who asked (see openEditor). */
export function openScopeEditor(
  deps: EditorDeps,
  asked: { triggerId: string; app: CometChatApp; userId: string },
  ref: ScopeRef,
): Promise<void> {
  return openEditor(deps, asked, {
    name: `the ${scopeName(ref)}`,
    load: () => loadScopeEditorView(deps, asked.app, ref),
  });
}

/** _Edit scope permissions_ on the group card. */
export function createEditScopeButton(deps: EditorDeps) {
  return async ({ ack, body, action }: ButtonArgs) => {
    await ack();
    // The button names its app, signed: a value made by hand or edited to name another is refused.
    const { app, value } = openSigned(deps.apps, ScopeValue, action.value);
    await openScopeEditor(deps, { triggerId: body.trigger_id, app, userId: body.user.id }, value);
  };
}
