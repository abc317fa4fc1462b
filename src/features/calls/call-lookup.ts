import type { App } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import { z } from 'zod';
import { failureMessage } from '../../slack/blocks.ts';
import { idProblem, uidProblem } from '../../slack/command.ts';
import { destinationOf } from '../../slack/deliver.ts';
import { alreadyShown, failureSentence } from '../../slack/failure.ts';
import { ACTIONS, BLOCKS, CALLBACKS } from '../../slack/ids.ts';
import { type RequestScope, scopeOf } from '../../slack/request-context.ts';
import { parseValue } from '../../slack/values.ts';
import type { FeatureDeps } from '../deps.ts';
import { withoutActions } from '../roles/role-list.ts';
import { callMessage, MAX_BUTTON_SESSION_ID, participantsView } from './call-view.ts';
import {
  lookupFormView,
  lookupPendingView,
  ON_BEHALF_INPUT,
  resultView,
  SESSION_INPUT,
} from './lookup-modal-view.ts';

const MAX_IDS_PER_MESSAGE = 3;
// The usual shape of a session id; a message shortcut has to guess, a typed id does not.
const SESSION_ID_IN_TEXT = /\bv1\.[a-z]{2,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g;

const RefValue = z.object({
  sessionId: z.string().min(1).max(MAX_BUTTON_SESSION_ID),
  onBehalfOf: z.string().min(1).max(100).optional(),
  page: z.number().int().min(1).max(10_000),
});

export function createCallRender({ cometchat }: Pick<FeatureDeps, 'cometchat'>) {
  return async (sessionId: string, onBehalfOf: string | undefined, scope: RequestScope) => {
    const call = await cometchat.getCall(sessionId, {
      ref: scope.ref,
      logger: scope.log,
      onBehalfOf,
    });
    return callMessage(call, onBehalfOf);
  };
}

/** `/cometchat call <sessionId> [as <uid>]`. */
export function createCallCommand(deps: FeatureDeps) {
  const render = createCallRender(deps);
  return async (
    sessionId: string,
    onBehalfOf: string | undefined,
    body: unknown,
    scope: RequestScope,
  ) => {
    await deps.deliver(destinationOf(body), await render(sessionId, onBehalfOf, scope), scope.log);
  };
}

/** Session ids found in a message's text, first ones first, without repeats. */
export function findSessionIds(text: string): string[] {
  return [...new Set(text.match(SESSION_ID_IN_TEXT) ?? [])].slice(0, MAX_IDS_PER_MESSAGE);
}

export function registerCallLookup(app: App, deps: FeatureDeps): void {
  const describe = (error: unknown, ref: string) =>
    failureMessage(failureSentence(error, deps.budgetSeconds), ref);
  const render = createCallRender(deps);

  app.action(ACTIONS.shareCall, async ({ ack, body, action, context }) => {
    await ack();
    const scope = scopeOf(context);
    const ref = parseValue(RefValue, 'value' in action ? action.value : undefined);
    const message = await render(ref.sessionId, ref.onBehalfOf, scope);
    await deps.deliver(
      destinationOf(body),
      { ...withoutActions(message), response_type: 'in_channel', replace_original: false },
      scope.log,
    );
  });

  // "Show all participants": a paged modal, opened before CometChat is asked because the
  // trigger id expires in three seconds.
  app.action(ACTIONS.callParticipants, async ({ ack, body, action, context, client }) => {
    await ack();
    const scope = scopeOf(context);
    const ref = parseValue(RefValue, 'value' in action ? action.value : undefined);
    const triggerId = (body as { trigger_id: string }).trigger_id;
    const loading = lookupPendingView(ref.sessionId);
    const inModal = (body as { view?: unknown }).view !== undefined;
    const opened = inModal
      ? await client.views.push({ trigger_id: triggerId, view: loading })
      : await client.views.open({ trigger_id: triggerId, view: loading });
    const viewId = opened.view?.id ?? '';
    try {
      const call = await deps.cometchat.getCall(ref.sessionId, {
        ref: scope.ref,
        logger: scope.log,
        onBehalfOf: ref.onBehalfOf,
      });
      await client.views.update({ view_id: viewId, view: participantsView(call, ref) });
    } catch (error) {
      await client.views.update({
        view_id: viewId,
        view: resultView(describe(error, scope.ref).blocks ?? []),
      });
      throw alreadyShown(error);
    }
  });

  app.action(
    new RegExp(`^${ACTIONS.participantsPage}`),
    async ({ ack, body, action, context, client }) => {
      await ack();
      const scope = scopeOf(context);
      const ref = parseValue(RefValue, 'value' in action ? action.value : undefined);
      const view = (body as { view?: { id: string; hash?: string } }).view;
      if (!view) return;
      const call = await deps.cometchat.getCall(ref.sessionId, {
        ref: scope.ref,
        logger: scope.log,
        onBehalfOf: ref.onBehalfOf,
      });
      await client.views.update({ view_id: view.id, view: participantsView(call, ref) });
    },
  );

  app.shortcut(CALLBACKS.lookupCallMessage, async ({ ack, shortcut, body, context }) => {
    await ack();
    const scope = scopeOf(context);
    const text = 'message' in shortcut ? (shortcut.message.text ?? '') : '';
    const ids = findSessionIds(text);
    const destination = destinationOf(body);
    if (ids.length === 0) {
      await deps.deliver(
        destination,
        {
          text: 'No call session id (like `v1.us.&lt;appId&gt;.&lt;id&gt;`) was found in that message. Use `/cometchat call &lt;sessionId&gt;` to look one up by hand.',
        },
        scope.log,
      );
      return;
    }
    for (const id of ids) {
      try {
        await deps.deliver(destination, await render(id, undefined, scope), scope.log);
      } catch (error) {
        scope.log.warn({ err: error, sessionId: id }, 'lookup from a message failed');
        await deps.deliver(destination, describe(error, scope.ref), scope.log);
      }
    }
  });

  app.shortcut(CALLBACKS.lookupCallGlobal, async ({ ack, shortcut, client }) => {
    await ack();
    await client.views.open({ trigger_id: shortcut.trigger_id, view: lookupFormView() });
  });

  app.view(CALLBACKS.lookupCallModal, async ({ ack, view, client, context }) => {
    const scope = scopeOf(context);
    const values = view.state.values;
    const sessionId = values[BLOCKS.lookupSession]?.[SESSION_INPUT]?.value?.trim() ?? '';
    const onBehalfOf =
      values[BLOCKS.lookupOnBehalfOf]?.[ON_BEHALF_INPUT]?.value?.trim() || undefined;
    const errors: Record<string, string> = {};
    const sessionProblem = idProblem(sessionId, 'A session id', 255, { spaces: true });
    if (sessionProblem) errors[BLOCKS.lookupSession] = sessionProblem;
    const onBehalfProblem = onBehalfOf === undefined ? undefined : uidProblem(onBehalfOf);
    if (onBehalfProblem) errors[BLOCKS.lookupOnBehalfOf] = onBehalfProblem;
    if (Object.keys(errors).length > 0) {
      await ack({ response_action: 'errors', errors });
      return;
    }
    // Answer within Slack's three seconds with a pending view, then fill it in.
    await ack({ response_action: 'update', view: lookupPendingView(sessionId) });
    let blocks: KnownBlock[];
    try {
      blocks = withoutShareButtons((await render(sessionId, onBehalfOf, scope)).blocks ?? []);
    } catch (error) {
      await client.views.update({
        view_id: view.id,
        view: resultView(describe(error, scope.ref).blocks ?? []),
      });
      throw alreadyShown(error);
    }
    await client.views.update({ view_id: view.id, view: resultView(blocks) });
  });
}

/** In a modal there is no channel to share into: drop the share buttons, keep the rest. */
function withoutShareButtons(blocks: KnownBlock[]): KnownBlock[] {
  return blocks.flatMap((block): KnownBlock[] => {
    if (block.type !== 'actions') return [block];
    const elements = block.elements.filter(
      (e) => !('action_id' in e && e.action_id === ACTIONS.shareCall),
    );
    return elements.length > 0 ? [{ ...block, elements }] : [];
  });
}
