import type { View } from '@slack/types';
import { z } from 'zod';
import { editRefusal } from '../access/edit-refusal.ts';
import {
  type Apps,
  type CometChatApp,
  tryOpenSigned,
  UNSIGNED_REFUSAL,
  valueWriter,
} from '../apps/apps.ts';
import { type Catalogue, sameValue } from '../cometchat/catalogue.ts';
import { isCometChatError } from '../cometchat/errors.ts';
import { GROUP_SCOPES, type Group } from '../cometchat/group-model.ts';
import { GUID_PATTERN, MAX_ROLES } from '../cometchat/id-rules.ts';
import { type PermissionValue, type Role, RoleIdSchema } from '../cometchat/schemas.ts';
import { readScopeCatalogue } from '../cometchat/scope-catalogue.ts';
import { inApp, roleHoldersSentence, roleLimitSentence } from '../replies/sentences.ts';
import { currentRequest, msLeft } from '../request-context.ts';
import type { ButtonArgs } from '../slack/listener-args.ts';
import { failInModal } from '../slack/modal-outcome.ts';
import { code, escapeMrkdwn } from '../slack/mrkdwn.ts';
import { type KnownPermissions, knownScopeKey } from '../store/store.ts';
import {
  changeId,
  changeRecord,
  idPayload,
  METADATA_LIMIT,
  type PermissionsChange,
  RoleActionSchema,
  type RoleChange,
  type ScopePermissionsChange,
  SubmittedValueSchema,
} from './change.ts';
import { type AppLabel, appLabel, type ChangeDeps, OPEN_CHECK_DEADLINE_MS } from './deps.ts';
import { type Baseline, baselineFrom } from './kinds/permissions.ts';
import { roleAsk, roleChangeLines } from './kinds/role.ts';
import { scopeName } from './kinds/scope-permissions.ts';
import { failureView, type PromotionOffer } from './outcome.ts';
import { type AskedRoleChange, confirmView, roleChangeOf, roleReviewView } from './review.ts';
import { messageView } from './views.ts';

/** The title of every modal of a promotion. */
const PROMOTE_TITLE = 'Apply to another app';

// Promotion: a change applied to one app (a role's permissions, or a role itself), offered to
// each other app where it can be made the same, through that app's own review. Nothing is sent
// from here; that app's review is.

/**
 * How long an applied change's result waits for the other apps' role lists (to offer the change
 * to those that have the role); an app that has not answered by then is not offered.
 */
const PROMOTION_CHECK_MS = 1_500;

/**
 * What an applied change's result carries so that it can be offered to another app: the role,
 * the keys and the values sent (no "before": each app's own is read when it is reviewed), and
 * the ref of the attempt, which the promoted change's audit record names.
 */
export const AppliedChangeSchema = z
  .object({
    role: z.string().max(120),
    ref: z.string().min(1).max(64),
    changes: z
      .array(
        z.object({
          key: z.string().min(1).max(100),
          after: z.union([SubmittedValueSchema, z.string().max(255)]),
          unset: z.literal(true).optional(),
        }),
      )
      .min(1)
      .max(200),
    /**
     * For a change to the role itself (created, renamed, deleted), or to a group's scope's
     * permissions (`role` is then knownScopeKey of the two); absent for a role's permissions.
     */
    subject: z
      .union([
        z.object({ kind: z.literal('role'), action: RoleActionSchema }),
        z.object({
          kind: z.literal('scope'),
          guid: z.string().regex(GUID_PATTERN),
          scope: z.enum(GROUP_SCOPES),
        }),
      ])
      .optional(),
  })
  .refine(({ role, subject }) =>
    subject?.kind === 'scope'
      ? role === knownScopeKey(subject.guid, subject.scope)
      : RoleIdSchema.safeParse(role).success,
  );
export type AppliedChange = z.infer<typeof AppliedChangeSchema>;

/**
 * The applied change as the result carries it, for promotion to another app. Too large to carry
 * back means no promotion: it is never offered half. Pure.
 */
export function promotionMetadata(
  change: PermissionsChange | RoleChange | ScopePermissionsChange,
  ref: string,
  label: AppLabel,
): string | undefined {
  const applied: AppliedChange = {
    role: change.role,
    ref,
    changes: change.changes.map(({ key, after, unset }) => ({
      key,
      after,
      ...(unset ? { unset } : {}),
    })),
    ...(change.kind === 'role' ? { subject: { kind: 'role', action: change.action } } : {}),
    ...(change.kind === 'scope-permissions'
      ? { subject: { kind: 'scope', guid: change.guid, scope: change.scope } }
      : {}),
  };
  const metadata = (label.write ?? JSON.stringify)(applied);
  return metadata.length <= METADATA_LIMIT ? metadata : undefined;
}

/**
 * A change of permissions applied to one app, made into another app's change: the same keys and
 * values, each "before" taken from that app's own baseline. A key already at the value there is
 * still sent (marked as stated explicitly): a promotion sends exactly the promoted keys. Pure.
 */
export function promotedChange(input: {
  applied: AppliedChange;
  from: string;
  to: string;
  baseline: Baseline;
}): PermissionsChange | ScopePermissionsChange {
  const { applied, baseline } = input;
  const changes = applied.changes.map(({ key, after, unset }) => {
    const before = baseline.values[key];
    // An unset is sent whatever the value there: that app's role is to follow the default too.
    if (unset) return { key, before, after, explicit: false, unset };
    return { key, before, after, explicit: sameValue(before, after) };
  });
  const fields = {
    role: applied.role,
    id: changeId(`promoted ${applied.ref}`, input.to, applied.role, idPayload(changes)),
    changes,
    seenAt: baseline.seenAt,
    promotedFrom: { app: input.from, ref: applied.ref },
  };
  const { subject } = applied;
  return subject?.kind === 'scope'
    ? { kind: 'scope-permissions', guid: subject.guid, scope: subject.scope, ...fields }
    : { kind: 'permissions', ...fields };
}

/**
 * The other apps an applied change can be offered to: those whose role list has the role (or,
 * `without`, lacks it: to create it there), less the app a promoted change came from. The lists
 * are asked together and waited for a short while; an app that fails or is slow is left out (its
 * role is checked again when the change is offered to it anyway).
 */
export async function appsWithRole(
  apps: Pick<Apps, 'all'>,
  applied: CometChatApp,
  role: string,
  options: { cameFrom?: string | undefined; without?: boolean } = {},
): Promise<string[]> {
  const others = apps.all.filter(
    (other) => other.name !== applied.name && other.name !== options.cameFrom,
  );
  const found = await Promise.all(
    others.map(async (other) => {
      const roles = await rolesWithin(other);
      if (!roles) return undefined;
      return roles.some((r) => r.role === role) !== (options.without ?? false)
        ? other.name
        : undefined;
    }),
  );
  return found.filter((name): name is string => name !== undefined);
}

/**
 * The other apps a change of a group's scope can be offered to: those where CometChat has the
 * group (the same guid), less the app a promoted change came from; asked as appsWithRole asks.
 */
export async function appsWithGroup(
  apps: Pick<Apps, 'all'>,
  applied: CometChatApp,
  guid: string,
  options: { cameFrom?: string | undefined } = {},
): Promise<string[]> {
  const others = apps.all.filter(
    (other) => other.name !== applied.name && other.name !== options.cameFrom,
  );
  const found = await Promise.all(
    others.map(async (other) =>
      (await within(other, 'group', () => other.cometchat.getGroup(guid))) ? other.name : undefined,
    ),
  );
  return found.filter((name): name is string => name !== undefined);
}

/**
 * What an app answers within PROMOTION_CHECK_MS; undefined when it fails (an unknown group too)
 * or is late, which is logged.
 */
async function within<T>(
  app: CometChatApp,
  what: string,
  read: () => Promise<T>,
): Promise<T | undefined> {
  const { log } = currentRequest();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), PROMOTION_CHECK_MS);
  });
  try {
    const answer = await Promise.race([read(), late]);
    if (answer === undefined) log.info({ app: app.name }, `promotion: ${what} not in time`);
    return answer;
  } catch (error) {
    log.warn({ err: error, app: app.name }, `promotion: ${what} failed`);
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** An app's roles, if it answers within PROMOTION_CHECK_MS; a failure or a late answer is logged. */
function rolesWithin(app: CometChatApp): Promise<readonly Role[] | undefined> {
  return within(app, 'role list', () => app.cometchat.listAllRoles());
}

const PromoteValue = z.object({ promoteTo: z.string() });

/**
 * The "Apply the same change to <app>" buttons of a change applied to `from`: each value names
 * its app, signed by `from` like the result's metadata, so that a button cannot be made by hand
 * nor a value moved from another result.
 */
export function promotionOffers(from: CometChatApp, names: readonly string[]): PromotionOffer[] {
  const write = valueWriter(from);
  return names.map((app) => ({ app, value: write({ promoteTo: app }) }));
}

/**
 * "Apply the same change to <app>" on a result: that app's own review of the same change, after
 * its own editor check. Nothing is sent from here; that app's review is.
 */
export function createPromoteButton(deps: ChangeDeps) {
  return async ({ ack, body, action }: ButtonArgs) => {
    await ack();
    const { log } = currentRequest();
    const push = (view: View) => deps.views.push({ trigger_id: body.trigger_id, view });
    // The change comes from the result's metadata, signed by the app it was applied to; the
    // button names where it goes, signed by the same app.
    const from = tryOpenSigned(deps.apps, AppliedChangeSchema, body.view?.private_metadata);
    const offer = tryOpenSigned(deps.apps, PromoteValue, action.value);
    const to = offer && deps.apps.byName(offer.value.promoteTo);
    if (!from || offer?.app !== from.app || !to || to.name === from.app.name) {
      log.warn('promotion: unsigned or forged button refused');
      await push(messageView(PROMOTE_TITLE, UNSIGNED_REFUSAL));
      return;
    }
    const refusal = await editRefusal(to.access, body.user.id, log, 'open', {
      withinMs: msLeft(OPEN_CHECK_DEADLINE_MS, deps.now),
    });
    if (refusal) {
      await push(messageView('Not allowed', refusal));
      return;
    }
    const label = appLabel(deps.apps, to);
    const applied = from.value;
    const viewId = await push(
      messageView(
        PROMOTE_TITLE,
        `:hourglass_flowing_sand: Preparing the review for ${applied.subject?.kind === 'scope' ? `the ${scopeName(applied.subject)}` : code(applied.role)}${inApp(label.appName)}…`,
        false,
      ),
    );
    try {
      const view = await promotionReview(deps, { applied, from: from.app.name, to, label });
      await deps.views.update({ view_id: viewId, view });
    } catch (error) {
      const failure = failureView(deps.failureSentence(error), currentRequest().ref);
      await failInModal(deps.views, { viewId }, failure, error, log);
    }
  };
}

/** That app's review of the applied change, read from its CometChat and the store. */
async function promotionReview(
  deps: Pick<ChangeDeps, 'store'>,
  input: { applied: AppliedChange; from: string; to: CometChatApp; label: AppLabel },
): Promise<View> {
  const { applied, to } = input;
  if (applied.subject?.kind === 'scope') {
    return scopePromotionReview(deps, { ...input, subject: applied.subject });
  }
  if (applied.subject) {
    const [roles, holders] = await Promise.all([
      to.cometchat.listAllRoles(),
      applied.subject.action === 'delete'
        ? to.cometchat.countUsersWithRole(applied.role, { withDeactivated: true })
        : undefined,
    ]);
    const target = { roles, holders, approvalChannel: to.approval?.channel, ...input.label };
    const roleChange = { ...applied, subject: applied.subject };
    return rolePromotionView(roleChange, { from: input.from, to: to.name, target });
  }
  const [roles, catalogue, known] = await Promise.all([
    to.cometchat.listAllRoles(),
    to.catalogue(),
    deps.store.getKnownPermissions(to.name, applied.role),
  ]);
  currentRequest().log.info(
    { from: input.from, to: to.name, role: applied.role, promotedFrom: applied.ref },
    'promotion: review shown',
  );
  return promotionView({ ...input, to: to.name, roles, known, catalogue });
}

/** What a promotion of permissions shows: that app's review, or why there is none. Pure. */
export function promotionView(input: {
  applied: AppliedChange;
  from: string;
  to: string;
  label: AppLabel;
  roles: readonly Pick<Role, 'role' | 'name'>[];
  known: KnownPermissions | undefined;
  /** Set when that app's changes need approval: the review asks for it instead. */
  approvalChannel?: string | undefined;
  /** That app's catalogue: its defaults are the "before" of a key it never set. */
  catalogue?: Catalogue | undefined;
}): View {
  const { applied, label } = input;
  const target = `${code(applied.role)}${inApp(label.appName)}`;
  if (!input.roles.some((r) => r.role === applied.role)) {
    return messageView(
      PROMOTE_TITLE,
      `CometChat has no role ${target}, so the change cannot be applied there. Nothing was sent.`,
    );
  }
  const change = promotedChange({ ...input, baseline: baselineFrom(input.known, input.catalogue) });
  const metadata = (label.write ?? JSON.stringify)(changeRecord(change));
  if (metadata.length > METADATA_LIMIT) {
    return messageView(
      PROMOTE_TITLE,
      `This change is too large to carry to ${target} in one confirmation. Nothing was sent; apply it there from the editor.`,
    );
  }
  const roleName = input.roles.find((r) => r.role === applied.role)?.name || applied.role;
  return confirmView(change, roleName, metadata, label.appName, input.approvalChannel, {
    catalogue: input.catalogue,
  });
}

/** What another app has of the role a promoted role change is about. */
interface PromotionTarget extends AppLabel {
  roles: readonly Role[];
  /** For a deletion: how many users hold the role there, deactivated ones included. */
  holders?: number | undefined;
  approvalChannel?: string | undefined;
}

type AppliedRoleChange = AppliedChange & {
  subject: Extract<AppliedChange['subject'], { kind: 'role' }>;
};

type ScopeSubject = Extract<AppliedChange['subject'], { kind: 'scope' }>;

/** That app's review of a change of a group's scope: the group, the scope's keys, its last map. */
async function scopePromotionReview(
  deps: Pick<ChangeDeps, 'store'>,
  input: {
    applied: AppliedChange;
    subject: ScopeSubject;
    from: string;
    to: CometChatApp;
    label: AppLabel;
  },
): Promise<View> {
  const { applied, subject, to } = input;
  const { log } = currentRequest();
  const [group, catalogue, known] = await Promise.all([
    to.cometchat.getGroup(subject.guid).catch((error: unknown) => {
      if (isCometChatError(error) && error.kind === 'not_found') return undefined;
      throw error;
    }),
    readScopeCatalogue(to.cometchat, subject.guid, subject.scope, (error) =>
      log.warn({ err: error, app: to.name }, 'scope definitions not read: shipped keys stand in'),
    ),
    deps.store.getKnownPermissions(to.name, applied.role),
  ]);
  log.info(
    { from: input.from, to: to.name, scope: applied.role, promotedFrom: applied.ref },
    'promotion: review shown',
  );
  return scopePromotionView({ ...input, to: to.name, group, known, catalogue });
}

/**
 * What a promotion of a group's scope's permissions shows: that app's review of the same keys on
 * the same group's same scope, or why there is none (no such group there). Pure.
 */
export function scopePromotionView(input: {
  applied: AppliedChange;
  subject: ScopeSubject;
  from: string;
  to: string;
  label: AppLabel;
  /** The group in that app; undefined when CometChat has none of that guid there. */
  group: Pick<Group, 'name'> | undefined;
  known: KnownPermissions | undefined;
  approvalChannel?: string | undefined;
  /** That app's keys of the scope: their defaults are the "before" of a key it never set. */
  catalogue: Catalogue;
}): View {
  const { subject, label, group } = input;
  if (!group) {
    return messageView(
      PROMOTE_TITLE,
      `CometChat has no group ${code(subject.guid)}${inApp(label.appName)}, so the change cannot be applied there. Nothing was sent.`,
    );
  }
  const change = promotedChange({ ...input, baseline: baselineFrom(input.known, input.catalogue) });
  const metadata = (label.write ?? JSON.stringify)(changeRecord(change));
  if (metadata.length > METADATA_LIMIT) {
    return messageView(
      PROMOTE_TITLE,
      `This change is too large to carry to the ${scopeName(subject)}${inApp(label.appName)} in one confirmation. Nothing was sent; apply it there from the editor.`,
    );
  }
  return confirmView(change, group.name, metadata, label.appName, input.approvalChannel, {
    catalogue: input.catalogue,
  });
}

/**
 * A role change applied to one app, as that app's own review: the same name, description or
 * permissions, each "before" that app's own; or why it cannot be made there. Pure.
 */
function rolePromotionView(
  applied: AppliedRoleChange,
  input: { from: string; to: string; target: PromotionTarget },
): View {
  const { target } = input;
  const { action } = applied.subject;
  const there = target.roles.find((r) => r.role === applied.role);
  const why = rolePromotionProblem(applied, target.roles, target.appName);
  if (why) return messageView(PROMOTE_TITLE, why);
  const changes = applied.changes.map(({ key, after }) => ({
    key,
    before: beforeThere(key, there),
    after,
  }));
  const holders =
    action === 'delete' ? ` ${roleHoldersSentence(target.holders ?? 0, ' there')}` : '';
  const asked: AskedRoleChange = {
    action,
    role: applied.role,
    changes,
    question: `The change made in *${escapeMrkdwn(input.from)}*: ${roleAsk(action, applied.role)}${inApp(target.appName)}?${holders}`,
    details: roleChangeLines(changes),
  };
  const change: RoleChange = {
    ...roleChangeOf(input.to, asked, `promoted ${applied.ref}`),
    promotedFrom: { app: input.from, ref: applied.ref },
  };
  return roleReviewView(asked, change, {
    write: target.write ?? JSON.stringify,
    approvalChannel: target.approvalChannel,
  });
}

/** A role field's value in the other app, the "before" of the promoted change there. */
function beforeThere(key: string, there: Role | undefined): PermissionValue {
  if (key === 'role') return there?.role ?? null;
  if (key === 'name') return there?.name ?? null;
  if (key === 'description') return there?.description ?? null;
  return null;
}

/** Why a role change cannot be made the same in another app, or undefined. Pure. */
function rolePromotionProblem(
  applied: AppliedRoleChange,
  roles: readonly Role[],
  appName: string | undefined,
): string | undefined {
  const id = code(applied.role);
  const there = roles.find((r) => r.role === applied.role);
  if (applied.subject.action === 'create') {
    if (there) return `There is a role ${id}${inApp(appName)} already. Nothing was sent.`;
    return roles.length >= MAX_ROLES ? roleLimitSentence(roles.length, appName) : undefined;
  }
  if (!there) return `There is no role ${id}${inApp(appName)}. Nothing was sent.`;
  // A rename or description the other app has already would send a change that does nothing.
  const same = applied.changes.every(({ key, after }) => beforeThere(key, there) === after);
  return applied.subject.action === 'update' && same
    ? `${id}${inApp(appName)} has that name and description already. Nothing was sent.`
    : undefined;
}
