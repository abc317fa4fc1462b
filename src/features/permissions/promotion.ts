import type { View } from '@slack/types';
import { z } from 'zod';
import { editRefusal } from '../../access/edit-refusal.ts';
import {
  type CometChatApp,
  tryOpenSealed,
  UNSEALED_REFUSAL,
  valueWriter,
} from '../../apps/apps.ts';
import type { Catalogue } from '../../cometchat/catalogue.ts';
import type { Role } from '../../cometchat/schemas.ts';
import type { ButtonArgs } from '../../slack/listener-args.ts';
import { msLeft, type RequestScope, scopeOf, tracedBy } from '../../slack/request-context.ts';
import type { KnownPermissions } from '../../store/store.ts';
import {
  appLabel,
  type EditorDeps,
  failInEditor,
  OPEN_CHECK_DEADLINE_MS,
  roleIn,
} from './editor-context.ts';
import {
  type AppliedChange,
  AppliedChangeSchema,
  baselineFrom,
  confirmRecord,
  METADATA_LIMIT,
  promotedChange,
} from './editor-state.ts';
import { type AppLabel, confirmView, messageView, type PromotionOffer } from './editor-view.ts';
import { rolePromotionView } from './role-change.ts';

// Promotion: a change applied to one app, offered to each other app that has the role, through
// that app's own review and confirmation.

/**
 * How long an applied change's result waits for the other apps' role lists (to offer the change
 * to those that have the role); an app that has not answered by then is not offered.
 */
export const PROMOTION_CHECK_MS = 1_500;

/**
 * The other apps an applied change can be offered to: those whose role list has the role, less
 * the app a promoted change came from (it has the change already). The lists are asked
 * together and waited for a short while; an app that fails or is slow is left out (its role is
 * checked again when the change is offered to it anyway).
 */
export async function appsWithRole(
  deps: Pick<EditorDeps, 'apps'>,
  applied: CometChatApp,
  role: string,
  scope: RequestScope,
  cameFrom?: string,
  /** `without`: the apps whose list lacks the role instead (to create it there). */
  options: { without?: boolean } = {},
): Promise<string[]> {
  const others = deps.apps.all.filter(
    (other) => other.name !== applied.name && other.name !== cameFrom,
  );
  const found = await Promise.all(
    others.map(async (other) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), PROMOTION_CHECK_MS);
      });
      try {
        const roles = await Promise.race([other.cometchat.listAllRoles(tracedBy(scope)), late]);
        if (!roles) scope.log.info({ app: other.name }, 'promotion: role list not in time');
        if (!roles) return undefined;
        return roles.some((r) => r.role === role) !== (options.without ?? false)
          ? other.name
          : undefined;
      } catch (error) {
        scope.log.warn({ err: error, app: other.name }, 'promotion: role list failed');
        return undefined;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return found.filter((name): name is string => name !== undefined);
}

const PromoteValue = z.object({ promoteTo: z.string() });

/**
 * The "Apply the same change to <app>" buttons of a change applied to `from`: each value names
 * its app, sealed by `from` like the result's metadata, so that a button cannot be made by hand
 * nor a value moved from another result.
 */
export function promotionOffers(from: CometChatApp, names: readonly string[]): PromotionOffer[] {
  const write = valueWriter(from);
  return names.map((app) => ({ app, value: write({ promoteTo: app }) }));
}

/**
 * "Apply the same change to <app>" on a result: the same keys and values as a confirmation for
 * that app, compared with its own last known permissions, after its own editor check. Nothing is
 * sent from here; that app's confirmation is.
 */
export function createPromoteButton(deps: EditorDeps) {
  return async ({ ack, body, action, context }: ButtonArgs) => {
    await ack();
    const scope = scopeOf(context);
    const push = (view: View) => deps.views.push({ trigger_id: body.trigger_id, view });
    // The change comes from the result's metadata, sealed by the app it was applied to; the
    // button names where it goes, sealed by the same app.
    const from = tryOpenSealed(deps.apps, AppliedChangeSchema, body.view?.private_metadata);
    const offer = tryOpenSealed(deps.apps, PromoteValue, action.value);
    const to = offer && deps.apps.byName(offer.value.promoteTo);
    if (!from || offer?.app !== from.app || !to || to.name === from.app.name) {
      scope.log.warn('promotion: unsealed or forged button refused');
      await push(messageView('Apply to another app', UNSEALED_REFUSAL));
      return;
    }
    const applied = from.value;
    const refusal = await editRefusal(to.access, body.user.id, scope.log, 'open', {
      withinMs: msLeft(scope, OPEN_CHECK_DEADLINE_MS, deps.now),
    });
    if (refusal) {
      await push(messageView('Not allowed', refusal));
      return;
    }
    const label = appLabel(deps, to);
    const viewId = await push(
      messageView(
        'Apply to another app',
        `:hourglass_flowing_sand: Preparing the review for ${roleIn(applied.role, label)}…`,
        false,
      ),
    );
    await showPromotion(deps, { applied, from: from.app, to, label, viewId, scope });
  };
}

/** Fills the pushed modal with that app's confirmation of the change, or the failure. */
async function showPromotion(
  deps: EditorDeps,
  input: {
    applied: AppliedChange;
    from: CometChatApp;
    to: CometChatApp;
    label: AppLabel;
    viewId: string;
    scope: RequestScope;
  },
): Promise<void> {
  const { applied, from, to, viewId, scope } = input;
  try {
    if (applied.subject) {
      const view = await rolePromotion({
        ...input,
        applied: { ...applied, subject: applied.subject },
      });
      await deps.views.update({ view_id: viewId, view });
      return;
    }
    const [roles, catalogue, known] = await Promise.all([
      to.cometchat.listAllRoles(tracedBy(scope)),
      to.catalogue(tracedBy(scope)),
      deps.store.getKnownPermissions(to.name, applied.role),
    ]);
    await deps.views.update({
      view_id: viewId,
      view: promotionView({
        applied,
        from: from.name,
        to: to.name,
        label: input.label,
        roles,
        known,
        approvalChannel: to.approval?.channel,
        catalogue,
      }),
    });
    scope.log.info(
      { from: from.name, to: to.name, role: applied.role, promotedFrom: applied.ref },
      'promotion: review shown',
    );
  } catch (error) {
    await failInEditor({ viewId }, error, scope, deps);
  }
}

/** A role change's promotion: that app's roles (and who holds the role, to delete it) read. */
async function rolePromotion(input: {
  applied: AppliedChange & { subject: NonNullable<AppliedChange['subject']> };
  from: CometChatApp;
  to: CometChatApp;
  label: AppLabel;
  scope: RequestScope;
}): Promise<View> {
  const { applied, to, label, scope } = input;
  const request = tracedBy(scope);
  const [roles, holders] = await Promise.all([
    to.cometchat.listAllRoles(request),
    applied.subject.action === 'delete'
      ? to.cometchat.countUsersWithRole(applied.role, { ...request, withDeactivated: true })
      : undefined,
  ]);
  const target = {
    roles,
    holders,
    approvalChannel: to.approval?.channel,
    write: label.write ?? JSON.stringify,
    appName: label.appName,
  };
  return rolePromotionView(applied, { from: input.from.name, to: to.name, target });
}

/** What a promotion shows: that app's confirmation, or why there is none. Pure. */
export function promotionView(input: {
  applied: AppliedChange;
  from: string;
  to: string;
  label: AppLabel;
  roles: readonly Pick<Role, 'role' | 'name'>[];
  known: KnownPermissions | undefined;
  /** Set when that app's changes need approval: the confirmation asks for it instead. */
  approvalChannel?: string | undefined;
  /** That app's catalogue: its defaults are the "before" of a key it never set. */
  catalogue?: Catalogue | undefined;
}): View {
  const { applied, label } = input;
  const target = roleIn(applied.role, label);
  if (!input.roles.some((r) => r.role === applied.role)) {
    return messageView(
      'Apply to another app',
      `CometChat has no role ${target}, so the change cannot be applied there. Nothing was sent.`,
    );
  }
  const meta = promotedChange({
    applied,
    from: input.from,
    to: input.to,
    baseline: baselineFrom(input.known, input.catalogue),
  });
  const metadata = (label.write ?? JSON.stringify)(confirmRecord(meta));
  if (metadata.length > METADATA_LIMIT) {
    return messageView(
      'Apply to another app',
      `This change is too large to carry to ${target} in one confirmation. Nothing was sent; apply it there from the editor.`,
    );
  }
  const roleName = input.roles.find((r) => r.role === applied.role)?.name || applied.role;
  return confirmView(meta, roleName, metadata, label.appName, input.approvalChannel, {
    catalogue: input.catalogue,
  });
}
