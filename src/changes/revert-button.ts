import type { View } from '@slack/types';
import { editRefusal } from '../access/edit-refusal.ts';
import {
  appNameIfMultiple,
  approvalFor,
  type CometChatApp,
  openSigned,
  valueWriter,
} from '../apps/apps.ts';
import type { Catalogue } from '../cometchat/catalogue.ts';
import { isCometChatError } from '../cometchat/errors.ts';
import type { Group } from '../cometchat/group-model.ts';
import type { User } from '../cometchat/model.ts';
import { readScopeCatalogue } from '../cometchat/scope-catalogue.ts';
import { currentRequest, msLeft } from '../request-context.ts';
import type { ButtonArgs } from '../slack/listener-args.ts';
import { failInModal } from '../slack/modal-outcome.ts';
import type { AuditRecord, Store } from '../store/store.ts';
import { type ChangeDeps, OPEN_CHECK_DEADLINE_MS } from './deps.ts';
import { revertibleAnyway } from './kinds/containment.ts';
import { standingOf } from './kinds/group-member.ts';
import { ruleIfAny } from './kinds/rule.ts';
import { failureView } from './outcome.ts';
import { replyPrivately } from './replies.ts';
import { type Now, notAppliedSentence, RevertValueSchema, revertOf } from './revert.ts';
import { REVERT_TITLE, revertReviewView } from './revert-view.ts';
import { messageView } from './views.ts';

// _Revert_ clicked: the record read from the store, what is there now read from CometChat (and
// the store), and the review of the revert (revert.ts works it out, revert-view.ts draws it) in
// a modal. Its "Apply" is every change's (confirm.ts): nothing is sent from here.

/** Said of a Revert whose record is not in the store, or is another app's. */
const UNKNOWN_RECORD =
  "That change's audit record is not in this app's trail (any more); nothing was sent.";

/**
 * _Revert_ on an audit record (the audit list, the audit channel's post, the Home tab): for an
 * editor, the review of the change that puts it back, in a modal; for anyone else, the one
 * sentence every change refuses them with.
 */
export function createRevertButton(deps: ChangeDeps) {
  return async (args: ButtonArgs) => {
    const { ack, body, action } = args;
    await ack();
    const { app, value } = openSigned(deps.apps, RevertValueSchema, action.value);
    const { log } = currentRequest();
    const limit = { withinMs: msLeft(OPEN_CHECK_DEADLINE_MS, deps.now) };
    // A moderation decision's record is a moderator's to open (it has no revert: they are told
    // why), any other an editor's: both are asked at once (the record is read only once the
    // modal is open), each refusal kept.
    const [asEditor, asModerator] = await Promise.all([
      app.access.editRefusal(body.user.id, log, limit),
      app.access.moderatorRefusal(body.user.id, log, limit),
    ]);
    if (asEditor && asModerator) {
      const refusal = await editRefusal(app.access, body.user.id, log, 'revert', limit);
      return replyPrivately(deps, args, refusal ?? asEditor);
    }
    const refusals = { asEditor, asModerator };
    const viewId = await deps.views.open({
      trigger_id: body.trigger_id,
      view: messageView(REVERT_TITLE, ':hourglass_flowing_sand: Asking CometChat…', false),
    });
    try {
      const view = await revertReview(deps, app, value.revert, refusals);
      await deps.views.update({ view_id: viewId, view });
    } catch (error) {
      const { ref } = currentRequest();
      const failure = failureView(deps.failureSentence(error), ref, { title: REVERT_TITLE });
      await failInModal(deps.views, { viewId }, failure, error, log);
    }
  };
}

/** The review of the revert of record `ref`, or the modal that says why there is none. */
async function revertReview(
  deps: Pick<ChangeDeps, 'store' | 'apps'>,
  app: CometChatApp,
  ref: string,
  refusals: { asEditor: string | undefined; asModerator: string | undefined },
): Promise<View> {
  const record = await deps.store.getAudit(ref);
  if (record?.app !== app.name) return messageView(REVERT_TITLE, UNKNOWN_RECORD);
  const refusal = record.subject?.kind === 'message' ? refusals.asModerator : refusals.asEditor;
  if (refusal) return messageView(REVERT_TITLE, refusal);
  if (record.outcome !== 'applied' && !revertibleAnyway(record)) {
    return messageView(REVERT_TITLE, notAppliedSentence(record.outcome));
  }
  const [now, catalogue] = await Promise.all([
    readNow(deps.store, app, record),
    catalogueFor(app, record),
  ]);
  const revert = revertOf(record, { ...now, defaults: catalogue.defaults() });
  currentRequest().log.info(
    { app: app.name, reverts: ref, revertible: revert.kind === 'revert' },
    'revert: review shown',
  );
  if (revert.kind === 'none') return messageView(REVERT_TITLE, revert.sentence);
  return revertReviewView(record, revert, {
    write: valueWriter(app),
    appName: appNameIfMultiple(deps.apps, app),
    approvalChannel: approvalFor(app, revert.change.kind)?.channel,
    catalogue,
  });
}

/** What the revert of `record` is worked out from: what CometChat (and the store) has now. */
async function readNow(
  store: Pick<Store, 'getKnownPermissions'>,
  app: CometChatApp,
  record: AuditRecord,
): Promise<Omit<Now, 'defaults'>> {
  const target = record.subject;
  const deleting = target?.kind === 'role' && target.action === 'create';
  const [roles, user, known, holders, rule, member] = await Promise.all([
    app.cometchat.listAllRoles({ fresh: true }),
    target?.kind === 'user' || target?.kind === 'containment'
      ? userIfAny(app, target.uid)
      : undefined,
    target === undefined || target.kind === 'scope'
      ? store.getKnownPermissions(app.name, record.role)
      : undefined,
    deleting ? app.cometchat.countUsersWithRole(record.role, { withDeactivated: true }) : undefined,
    target?.kind === 'rule' ? ruleIfAny(app.cometchat, record.role) : undefined,
    target?.kind === 'group-member'
      ? standingOf(app.cometchat, target.guid, target.uid, record.changes[0]?.key ?? '')
      : undefined,
  ]);
  const group = target?.kind === 'scope' ? await groupIfAny(app, target.guid) : undefined;
  return { roles, user, known, holders, rule, group, member };
}

/** The keys (and defaults) a record's map has: a group's scope's, else the app's catalogue. */
function catalogueFor(app: CometChatApp, record: AuditRecord): Promise<Catalogue> {
  const target = record.subject;
  if (target?.kind !== 'scope') return app.catalogue();
  return readScopeCatalogue(app.cometchat, target.guid, target.scope, (error) =>
    currentRequest().log.warn({ err: error }, 'scope definitions not read: shipped keys stand in'),
  );
}

/** The group as CometChat has it now; undefined when it has no such group. */
function groupIfAny(app: CometChatApp, guid: string): Promise<Group | undefined> {
  return app.cometchat.getGroup(guid).catch((error: unknown) => {
    if (isCometChatError(error) && error.kind === 'not_found') return undefined;
    throw error;
  });
}

/** The user as CometChat has them now; undefined when it has no such user. */
function userIfAny(app: CometChatApp, uid: string): Promise<User | undefined> {
  return app.cometchat.getUser(uid).catch((error: unknown) => {
    if (isCometChatError(error) && error.kind === 'not_found') return undefined;
    throw error;
  });
}
