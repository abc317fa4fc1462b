import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { initialStateValues, type ViewStateValues } from '../../src/slack-standin/view-state.ts';
import type { StoredView } from '../../src/slack-standin/web-api.ts';
import { type Harness, startHarness, textOf } from './harness.ts';

type Values = ViewStateValues;

/** The latest version of a view, as the stand-in holds it. */
function latest(h: Harness, id: string): StoredView {
  const view = h.slack.views.get(id);
  if (!view) throw new Error(`no view ${id}`);
  return view;
}

async function openEditor(h: Harness, role: string): Promise<StoredView> {
  const before = h.slack.calls.length;
  await h.driver.command(`perms ${role}`);
  const opened = await h.slack.nextCall('views.open', before);
  const update = await h.slack.nextCall('views.update', before);
  const id = (update.args.view_id as string) ?? '';
  expect(opened.args.trigger_id).toBeTruthy();
  return latest(h, id);
}

async function switchCategory(
  h: Harness,
  view: StoredView,
  category: string,
  values?: Values,
): Promise<StoredView> {
  const before = h.slack.calls.length;
  await h.driver.interaction(
    h.driver.blockAction({
      actionId: 'perms_category',
      selectedOption: { value: category },
      view,
      values: values ?? initialStateValues(view),
    }),
  );
  await h.slack.nextCall('views.update', before);
  return latest(h, view.id);
}

function blockIdFor(view: StoredView, prefix: string): string {
  const blocks = view.blocks as { block_id?: string }[];
  const found = blocks.find((b) => b.block_id?.startsWith(prefix));
  if (!found?.block_id) throw new Error(`no block ${prefix}`);
  return found.block_id;
}

/** Unchecks (or checks) one allow/deny action in the first actions group. */
function toggleAction(view: StoredView, key: string, allow: boolean): Values {
  const values = initialStateValues(view);
  const blockId = blockIdFor(view, 'a:');
  const field = values[blockId]?.perms_field as { selected_options: { value: string }[] };
  const options =
    (view.blocks as { block_id?: string; element?: { options: { value: string }[] } }[]).find(
      (b) => b.block_id === blockId,
    )?.element?.options ?? [];
  const selected = field.selected_options.filter((o) => o.value !== key);
  if (allow) selected.push(options.find((o) => o.value === key) ?? { value: key });
  field.selected_options = selected;
  return values;
}

async function submit(h: Harness, view: StoredView, values: Values) {
  const exchange = await h.driver.interaction(h.driver.viewSubmission({ view, values }));
  expect(exchange.status).toBe(200);
  return exchange.body
    ? (JSON.parse(exchange.body) as {
        response_action?: string;
        view?: Record<string, unknown>;
        errors?: Record<string, string>;
      })
    : {};
}

function puts(h: Harness) {
  return h.sandbox.requests.filter((r) => r.method === 'PUT');
}

describe('permission editor through the real app', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    h.checkAllPayloads();
    await h.stop();
  });

  it('opens, switches category, sends exactly the one changed key, and shows the result', async () => {
    const editor = await openEditor(h, 'default');
    expect(textOf(editor)).toContain('documented defaults');
    const messages = await switchCategory(h, editor, 'Messages');
    expect(messages.hash).not.toBe(editor.hash);

    const answer = await submit(h, messages, toggleAction(messages, 'sendMessage', false));
    expect(answer.response_action).toBe('push');
    expect(textOf(answer.view)).toContain('sendMessage');
    expect(textOf(answer.view)).toMatch(/allow → \*deny\*/);
    expect(puts(h)).toHaveLength(0);

    const confirm = [...h.slack.views.values()].find((v) => v.callback_id === 'perms_confirm');
    if (!confirm) throw new Error('no confirm view');
    const before = h.slack.calls.length;
    const ack = await submit(h, confirm, {});
    expect(ack.response_action).toBe('update');
    const result = await h.slack.nextCall('views.update', before);
    expect(textOf(result.args.view)).toContain('Resulting permissions');

    expect(puts(h)).toHaveLength(1);
    expect(puts(h)[0]?.path).toBe('/v3/roles/default/permissions');
    expect(puts(h)[0]?.body).toEqual({ permissions: { sendMessage: 'deny' } });
  });

  it('applies a repeated confirmation once', async () => {
    const editor = await openEditor(h, 'default');
    const messages = await switchCategory(h, editor, 'Messages');
    await submit(h, messages, toggleAction(messages, 'editMessage', false));
    const confirm = [...h.slack.views.values()].find((v) => v.callback_id === 'perms_confirm');
    if (!confirm) throw new Error('no confirm view');
    await Promise.all([submit(h, confirm, {}), submit(h, confirm, {})]);
    await h.slack.waitFor(
      () =>
        h.slack.calls.filter(
          (c) =>
            c.method === 'views.update' &&
            textOf(c.args.view).match(/Resulting permissions|already submitted/),
        ).length >= 2 || undefined,
    );
    expect(puts(h)).toHaveLength(1);
  });

  it('sends nothing when nothing changed', async () => {
    const editor = await openEditor(h, 'default');
    const answer = await submit(h, editor, initialStateValues(editor));
    expect(answer.response_action).toBe('update');
    expect(textOf(answer.view)).toContain('nothing was sent');
    expect(puts(h)).toHaveLength(0);
  });
});
