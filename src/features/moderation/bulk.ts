import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import {
  approvalFor,
  type CometChatApp,
  tryOpenSigned,
  UNSIGNED_REFUSAL,
  valueWriter,
} from '../../apps/apps.ts';
import {
  type AppLabel,
  appLabel,
  applyChange,
  changeId,
  type ModerationChange,
  requestApproval,
} from '../../changes/index.ts';
import { failureSentence } from '../../replies/failure.ts';
import { currentRequest } from '../../request-context.ts';
import { messageModal } from '../../slack/blocks.ts';
import { CALLBACKS } from '../../slack/ids.ts';
import type { SubmitArgs } from '../../slack/listener-args.ts';
import { code } from '../../slack/mrkdwn.ts';
import type { AppDeps } from '../deps.ts';
import { asJob } from '../job.ts';
import {
  BULK_BLOCK,
  BULK_ITEMS,
  BulkValueSchema,
  bulkProblem,
  bulkReviewView,
  type CarriedItem,
  DECISION_BLOCK,
  DECISION_INPUT,
  itemOfCarried,
  MODERATION_TITLE,
} from './decision-view.ts';
import { DECISION_LABEL, type Decision, decisionChange } from './queue.ts';

// "Decide several": the choice submitted becomes its review (nothing read: Slack waits three
// seconds); the review submitted sends one decision per item, in turn, each through the road
// (authorised, claimed once, checked against the queue, audited). A failure stops the batch:
// the modal then says which were decided and which were not.

const DecisionSchema = BulkValueSchema.shape.d.unwrap();

export function registerBulk(bolt: App, deps: AppDeps): void {
  bolt.view(CALLBACKS.moderationBulkPick, async ({ ack, view }: SubmitArgs) => {
    const opened = tryOpenSigned(deps.apps, BulkValueSchema, view.private_metadata);
    if (!opened) {
      await ack({
        response_action: 'update',
        view: messageModal(MODERATION_TITLE, UNSIGNED_REFUSAL),
      });
      return;
    }
    const { app, value } = opened;
    const values = view.state.values;
    const chosen = new Set(
      (values[BULK_BLOCK]?.[BULK_ITEMS]?.selected_options ?? []).map((option) => option.value),
    );
    const decision = DecisionSchema.safeParse(
      values[DECISION_BLOCK]?.[DECISION_INPUT]?.selected_option?.value,
    );
    const items = value.items.filter((item) => chosen.has(item.m));
    if (!decision.success) {
      await ack({ response_action: 'errors', errors: { [DECISION_BLOCK]: 'Choose a decision.' } });
      return;
    }
    const problem = bulkProblem(items, decision.data);
    if (problem) {
      await ack({ response_action: 'errors', errors: { [BULK_BLOCK]: problem } });
      return;
    }
    const label = appLabel(deps.apps, app);
    const where = {
      write: valueWriter(app),
      appName: label.appName,
      approvalChannel: approvalFor(app, 'moderation')?.channel,
    };
    await ack({ response_action: 'update', view: bulkReviewView(items, decision.data, where) });
  });
  bolt.view(CALLBACKS.moderationBulkApply, async ({ ack, view, body, client }: SubmitArgs) => {
    const opened = tryOpenSigned(deps.apps, BulkValueSchema, view.private_metadata);
    if (!opened?.value.d) {
      await ack({
        response_action: 'update',
        view: messageModal(MODERATION_TITLE, UNSIGNED_REFUSAL),
      });
      return;
    }
    const { app, value } = opened;
    const decision = value.d ?? 'approve';
    await ack({
      response_action: 'update',
      view: messageModal(
        MODERATION_TITLE,
        `:hourglass_flowing_sand: Deciding ${value.items.length} messages…`,
      ),
    });
    const who = { userId: body.user.id, teamId: body.team?.id ?? body.user.team_id ?? '' };
    const lines = await decideAll(deps, client, {
      app,
      items: value.items,
      decision,
      origin: view.id,
      ...who,
    });
    await deps.views
      .update({ view_id: view.id, view: messageModal(MODERATION_TITLE, lines.join('\n')) })
      .catch((error: unknown) => {
        const { log } = currentRequest();
        log.warn({ err: error }, 'moderation outcome not shown in the modal');
        return deps.deliver({ userId: who.userId }, { text: lines.join('\n') }, log);
      });
  });
}

interface Batch {
  app: CometChatApp;
  items: readonly CarriedItem[];
  decision: Decision;
  /** The review's view id: with each message, the claim that sends its decision once. */
  origin: string;
  userId: string;
  teamId: string;
}

/** One item's outcome: a line, and whether the batch goes on. */
interface Outcome {
  line: string;
  goOn: boolean;
}

/** Each item decided in turn, until one fails; a line per item, the undecided ones said. */
async function decideAll(deps: AppDeps, client: WebClient, batch: Batch): Promise<string[]> {
  const lines: string[] = [];
  const label = appLabel(deps.apps, batch.app);
  let stopped = false;
  for (const item of batch.items) {
    if (stopped) {
      lines.push(`• ${code(item.m)}: not sent (the batch stopped at the failure above)`);
      continue;
    }
    const status = { status: batch.decision };
    const id = changeId(batch.origin, batch.app.name, `message:${item.m}`, status);
    const change = decisionChange(itemOfCarried(item), batch.decision, id);
    // One request (a reference) per decision: each is one audit record, found by its own ref.
    const job = { task: 'moderation decision', messageId: item.m };
    const outcome = await asJob(
      currentRequest().log,
      job,
      () => decideOne(deps, client, { ...batch, change, label }),
      deps.now,
    );
    lines.push(`• ${code(item.m)}: ${outcome.line}`);
    stopped = !outcome.goOn;
  }
  return [`*${DECISION_LABEL[batch.decision]}* ${batch.items.length} messages:`, ...lines];
}

async function decideOne(
  deps: AppDeps,
  client: WebClient,
  one: Batch & { change: ModerationChange; label: AppLabel },
): Promise<Outcome> {
  const { app, change } = one;
  const approval = approvalFor(app, 'moderation');
  if (approval) {
    const asked = { ...one, app: { ...app, approval }, reason: undefined };
    const requested = await requestApproval(deps, client, asked);
    if (requested.kind === 'requested')
      return { line: `approval requested in <#${requested.channel}>`, goOn: true };
    if (requested.kind === 'repeated') return { line: 'already requested', goOn: true };
    if (requested.kind === 'stale')
      return { line: requested.why ?? 'no longer waiting; nothing requested', goOn: true };
    return { line: requested.sentence, goOn: false };
  }
  const outcome = await applyChange(deps, { app, change, userId: one.userId, teamId: one.teamId });
  switch (outcome.kind) {
    case 'applied':
      return { line: `decided (${String(change.changes[0]?.after)})`, goOn: true };
    case 'repeated':
    case 'taken':
      return { line: 'already decided by this review; not sent again', goOn: true };
    case 'stale':
      return { line: outcome.sentence, goOn: true };
    case 'refused':
    case 'not-sent':
      return { line: outcome.sentence, goOn: false };
    case 'failed':
    case 'unknown':
      return {
        line: `${outcome.kind === 'unknown' ? 'outcome unknown' : 'not decided'}: ${failureSentence(outcome.error, deps)} (ref ${code(currentRequest().ref)})`,
        goOn: false,
      };
  }
}
