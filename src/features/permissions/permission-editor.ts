import type { App } from '@slack/bolt';
import type { View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import { isCometChatError } from '../../cometchat/errors.ts';
import type { PermissionUpdate } from '../../cometchat/model.ts';
import { type Access, REFUSALS } from '../../slack/access.ts';
import { failureMessage } from '../../slack/blocks.ts';
import { alreadyShown, failureSentence, RefusedError } from '../../slack/failure.ts';
import { ACTIONS, CALLBACKS } from '../../slack/ids.ts';
import { code } from '../../slack/mrkdwn.ts';
import { type RequestScope, scopeOf } from '../../slack/request-context.ts';
import type { AuditRecord, Store } from '../../store/store.ts';
import type { AuditTrail } from '../audit/audit-trail.ts';
import type { FeatureDeps } from '../deps.ts';
import {
  baselineFrom,
  CATEGORIES,
  type Change,
  changeId,
  changePayload,
  computeChanges,
  decodeState,
  type EditorState,
  METADATA_LIMIT,
  mergeEdits,
  newEditorState,
  rebase,
  STALE_NOTICE,
} from './editor-state.ts';
import {
  blockIds,
  type ConfirmMetadata,
  confirmView,
  editorView,
  messageView,
  resultView,
} from './editor-view.ts';
import { readCategory, type StateValues } from './read-fields.ts';

export interface EditorDeps extends FeatureDeps {
  store: Store;
  access: Access;
  audit: AuditTrail;
  /** Whether EDITORS is set (the refusal names who may edit). */
  editorsConfigured: boolean;
}

/** The refusal for someone who may not edit, logged; undefined when they may. */
async function editRefusal(
  deps: EditorDeps,
  userId: string,
  scope: RequestScope,
  attempt: string,
): Promise<string | undefined> {
  if (await deps.access.canEdit(userId, scope.log)) return undefined;
  scope.log.warn({ user: userId, attempt }, 'permission edit refused: not an editor');
  return deps.editorsConfigured ? REFUSALS.edit : REFUSALS.editAdmins;
}

/** How long a confirmation's claim is held: long past any retry of the same submission. */
const CLAIM_TTL_SECONDS = 24 * 60 * 60;

const ConfirmSchema = z.object({
  role: z.string().regex(/^[a-z0-9_-]{1,100}$/),
  id: z.string().regex(/^[0-9a-f]{24}$/),
  changes: z
    .array(
      z.object({
        key: z.string().min(1).max(100),
        before: z.union([z.string(), z.array(z.string()), z.null()]).optional(),
        after: z.union([z.string(), z.array(z.string()), z.null()]),
        explicit: z.boolean(),
      }),
    )
    .min(1),
  seenAt: z.number().optional(),
});

function loadingView(role: string): View {
  return {
    ...messageView(
      'Edit permissions',
      `:hourglass_flowing_sand: Loading the editor for ${code(role)}…`,
      false,
    ),
    callback_id: CALLBACKS.permissionsEditor,
  };
}

/**
 * Opens the editor for a role: the modal opens at once with the trigger (it expires in three
 * seconds), then is filled once the role list and the last known values are at hand.
 */
export function createEditorOpener(deps: EditorDeps) {
  return async (
    client: WebClient,
    triggerId: string,
    role: string,
    userId: string,
    scope: RequestScope,
  ) => {
    const refusal = await editRefusal(deps, userId, scope, 'open');
    if (refusal) throw new RefusedError(refusal);
    const opened = await client.views.open({ trigger_id: triggerId, view: loadingView(role) });
    const viewId = opened.view?.id ?? '';
    try {
      const [roles, known] = await Promise.all([
        deps.cometchat.listAllRoles({ ref: scope.ref, logger: scope.log }),
        deps.store.getKnownPermissions(role),
      ]);
      const match = roles.find((r) => r.role === role);
      if (!match) {
        await client.views.update({
          view_id: viewId,
          view: messageView(
            'Edit permissions',
            `CometChat has no role ${code(role)}. Check the id with \`/cometchat roles\`.`,
          ),
        });
        scope.log.info({ role }, 'editor: unknown role');
        return;
      }
      const view = editorView({
        state: newEditorState(role, known?.seenAt),
        baseline: baselineFrom(known),
        roleName: match.name || role,
        roleIds: roles.map((r) => r.role),
      });
      await client.views.update({ view_id: viewId, view });
      scope.log.info({ role, known: known !== undefined }, 'editor opened');
    } catch (error) {
      await client.views
        .update({ view_id: viewId, view: failureView(error, scope, deps) })
        .catch(() => undefined);
      throw alreadyShown(error);
    }
  };
}

function failureView(error: unknown, scope: RequestScope, deps: FeatureDeps): View {
  const message = failureMessage(failureSentence(error, deps.budgetSeconds), scope.ref);
  return { ...messageView('Edit permissions', message.text), blocks: message.blocks ?? [] };
}

export function registerPermissionEditor(app: App, deps: EditorDeps): void {
  const open = createEditorOpener(deps);

  app.action(ACTIONS.editPermissions, async ({ ack, body, action, client, context }) => {
    await ack();
    const role = 'value' in action ? String(action.value ?? '') : '';
    await open(
      client,
      (body as { trigger_id: string }).trigger_id,
      role,
      body.user.id,
      scopeOf(context),
    );
  });

  // Switching category: keep what was edited on screen, or refuse to switch and say why.
  app.action(ACTIONS.permissionsCategory, async ({ ack, body, action, client, context }) => {
    await ack();
    const scope = scopeOf(context);
    const view = (
      body as {
        view?: {
          id: string;
          hash: string;
          private_metadata?: string;
          state?: { values: StateValues };
        };
      }
    ).view;
    const state = decodeState(view?.private_metadata);
    const target = action.type === 'static_select' ? action.selected_option?.value : undefined;
    if (!view || !state || !target || !CATEGORIES.includes(target)) return;
    // Refused silently (and logged): the view id in a refused request may be someone else's
    // modal, which must not be touched.
    if (await editRefusal(deps, body.user.id, scope, 'switch category')) return;
    const [roles, known] = await Promise.all([
      deps.cometchat.listAllRoles({ ref: scope.ref, logger: scope.log }),
      deps.store.getKnownPermissions(state.role),
    ]);
    const baseline = baselineFrom(known);
    const roleIds = roles.map((r) => r.role);
    const roleName = roles.find((r) => r.role === state.role)?.name || state.role;
    const read = readCategory(state, baseline, view.state?.values ?? {}, roleIds);
    let next: EditorState;
    let notice: string | undefined;
    if (known?.seenAt !== state.seenAt) {
      next = rebase(state, baseline);
      notice = STALE_NOTICE;
    } else if (Object.keys(read.errors).length > 0) {
      // Same render number, same block ids: Slack keeps what the user typed, so they can fix it.
      next = state;
      notice = `Fix these before switching: ${Object.values(read.errors).join(' ')}`;
    } else {
      const merged = mergeEdits(state, baseline, read.values, read.applyCategory);
      next = { ...merged, category: target, render: state.render + 1 };
    }
    const rendered = editorView({ state: next, baseline, roleName, roleIds, notice });
    if ((rendered.private_metadata ?? '').length > METADATA_LIMIT) {
      notice = 'There are too many pending edits to carry further: review and apply these first.';
      next = state;
      await client.views.update({
        view_id: view.id,
        hash: view.hash,
        view: editorView({ state: next, baseline, roleName, roleIds, notice }),
      });
      return;
    }
    try {
      await client.views.update({ view_id: view.id, hash: view.hash, view: rendered });
    } catch (error) {
      // A newer render won the race (the user clicked twice); theirs stands.
      if ((error as { data?: { error?: string } }).data?.error === 'hash_conflict') {
        scope.log.info('editor: stale category switch ignored');
        return;
      }
      throw error;
    }
  });

  // "Review changes": field errors go back into the modal; otherwise the exact change is
  // shown for confirmation. Nothing is sent to CometChat here.
  app.view(CALLBACKS.permissionsEditor, async ({ ack, view, body, client, context }) => {
    const scope = scopeOf(context);
    const refusal = await editRefusal(deps, body.user.id, scope, 'review');
    if (refusal) {
      await ack({ response_action: 'update', view: messageView('Not allowed', refusal) });
      return;
    }
    const state = decodeState(view.private_metadata);
    if (!state) {
      await ack({
        response_action: 'update',
        view: messageView(
          'Edit permissions',
          'This editor is out of date. Open it again with `/cometchat perms <role>`.',
        ),
      });
      return;
    }
    const known = await deps.store.getKnownPermissions(state.role);
    const baseline = baselineFrom(known);
    if (known?.seenAt !== state.seenAt) {
      // The values on screen are not the ones the diff would be taken against: comparing them
      // would turn someone else's change into "edits" of this user. Show the new values first.
      scope.log.info({ role: state.role }, 'editor: values changed meanwhile; redrawn');
      await ack({ response_action: 'update', view: loadingView(state.role) });
      const roles = await deps.cometchat.listAllRoles({ ref: scope.ref, logger: scope.log });
      await client.views.update({
        view_id: view.id,
        view: editorView({
          state: rebase(state, baseline),
          baseline,
          roleName: roles.find((r) => r.role === state.role)?.name || state.role,
          roleIds: roles.map((r) => r.role),
          notice: STALE_NOTICE,
        }),
      });
      return;
    }
    const read = readCategory(state, baseline, view.state.values as StateValues);
    if (Object.keys(read.errors).length > 0) {
      await ack({ response_action: 'errors', errors: read.errors });
      return;
    }
    const merged = mergeEdits(state, baseline, read.values, read.applyCategory);
    const changes = computeChanges(merged, baseline);
    if (changes.length === 0) {
      await ack({
        response_action: 'update',
        view: messageView(
          'Nothing to change',
          `Every field still has the value it showed, so nothing was sent for ${code(state.role)}.`,
        ),
      });
      scope.log.info({ role: state.role }, 'editor: nothing to change');
      return;
    }
    const meta: ConfirmMetadata = {
      role: state.role,
      id: changeId(view.id, state.role, changePayload(changes)),
      changes,
      seenAt: baseline.seenAt,
    };
    const metadata = JSON.stringify(meta);
    if (metadata.length > METADATA_LIMIT) {
      await ack({
        response_action: 'errors',
        errors: {
          [blockIds.apply(state.render)]:
            'Too many changes for one confirmation: apply part of them first.',
        },
      });
      return;
    }
    const roleName = state.role;
    await ack({ response_action: 'push', view: confirmView(meta, roleName, metadata) });
    scope.log.info(
      { role: state.role, keys: changes.map((c) => c.key), change: meta.id },
      'editor: change ready to confirm',
    );
  });

  // "Apply": acknowledged at once with a pending view; the update runs after, within the
  // client's time budget, and the view then shows the outcome. The claim makes a repeated
  // confirmation (double click, a retried request) apply once.
  app.view(CALLBACKS.permissionsConfirm, async ({ ack, view, body, client, context }) => {
    const scope = scopeOf(context);
    const parsed = ConfirmSchema.safeParse(safeJson(view.private_metadata));
    if (!parsed.success) {
      await ack({
        response_action: 'update',
        view: messageView(
          'Edit permissions',
          'This confirmation is out of date. Open the editor again.',
        ),
      });
      return;
    }
    const meta = parsed.data;
    const changes: Change[] = meta.changes.map((c) => ({
      key: c.key,
      before: c.before,
      after: c.after,
      explicit: c.explicit,
    }));
    await ack({
      response_action: 'update',
      view: messageView(
        'Applying',
        `:hourglass_flowing_sand: Applying ${changes.length} change${changes.length === 1 ? '' : 's'} to ${code(meta.role)}…`,
        false,
      ),
    });
    // Checked again here, after the acknowledgement (the check may ask Slack): a forged or
    // replayed confirmation must change nothing.
    const refusal = await editRefusal(deps, body.user.id, scope, 'confirm');
    if (refusal) {
      await client.views.update({ view_id: view.id, view: messageView('Not allowed', refusal) });
      return;
    }
    if (!(await deps.store.claim(meta.id, CLAIM_TTL_SECONDS))) {
      scope.log.warn({ role: meta.role, change: meta.id }, 'editor: repeated confirmation ignored');
      await client.views.update({
        view_id: view.id,
        view: messageView(
          'Already applied',
          `This change to ${code(meta.role)} was already submitted once; it was not sent again.`,
        ),
      });
      return;
    }
    const payload = changePayload(changes);
    const record = (outcome: AuditRecord['outcome'], extra: Partial<AuditRecord>): AuditRecord => ({
      ref: scope.ref,
      at: Date.now(),
      teamId: body.team?.id ?? body.user.team_id ?? '',
      userId: body.user.id,
      role: meta.role,
      changes: changes.map((c) => ({
        key: c.key,
        before: c.before ?? null,
        after: c.after,
        explicit: c.explicit,
      })),
      beforeSource: meta.seenAt !== undefined ? 'last-update' : 'defaults',
      outcome,
      ...extra,
    });
    let update: PermissionUpdate;
    try {
      update = await deps.cometchat.setRolePermissions(meta.role, payload, {
        ref: scope.ref,
        logger: scope.log,
      });
    } catch (error) {
      // Nothing, or an unknown part, was applied: record it, and let a new attempt through.
      await deps.audit.record(
        record('failed', {
          errorKind: isCometChatError(error) ? error.kind : 'internal',
          serviceMessage: isCometChatError(error)
            ? (error.serviceMessage ?? error.serviceCode)
            : undefined,
        }),
        scope.log,
      );
      await deps.store.release(meta.id).catch((releaseError: unknown) => {
        scope.log.error({ err: releaseError, change: meta.id }, 'claim could not be released');
      });
      await client.views
        .update({ view_id: view.id, view: failureView(error, scope, deps) })
        .catch(() => undefined);
      throw alreadyShown(error);
    }
    const messages = Object.entries(update.results)
      .map(([key, r]) => `${key}: ${r.message}`)
      .join('; ');
    // The change is applied: whatever the store does now, the person sees the result.
    const [, audited] = await Promise.all([
      deps.store
        .setKnownPermissions({
          role: meta.role,
          permissions: update.permissions,
          seenAt: Date.now(),
        })
        .catch((storeError: unknown) => {
          scope.log.error(
            { err: storeError, role: meta.role },
            'last known permissions not stored',
          );
        }),
      deps.audit.record(record('applied', { serviceMessage: messages || undefined }), scope.log),
    ]);
    scope.log.info(
      { role: meta.role, keys: Object.keys(payload), change: meta.id },
      'permissions updated',
    );
    await client.views.update({
      view_id: view.id,
      view: resultView(meta.role, update, changes, audited.stored),
    });
  });
}

function safeJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
}
