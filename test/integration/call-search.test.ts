import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../offline/cometchat-standin/server.ts';
import { initialStateValues } from '../../offline/slack-standin/view-state.ts';
import { plain } from '../../src/slack/blocks.ts';
import { ACTIONS } from '../../src/slack/ids.ts';
import {
  actionButtons,
  type Button,
  blocksOf,
  commandReply,
  expectNoInjectedMarkup,
  type Harness,
  interactionReply,
  signedJson,
  tableRecords,
  textOf,
} from './harness.ts';
import { useHarness } from './support.ts';

// `/cometchat calls` through the real app against the sandbox's call list.

const UID = 'cometchat-uid-2';

/** Requests for the call list (not a single call) that reached the sandbox. */
const listRequests = (h: Harness): RecordedRequest[] =>
  h.sandbox.requests.filter((r) => r.method === 'GET' && r.path === '/v3/calls');

/** Every button of a reply: actions blocks and section accessories. */
function buttonsOf(payload: Record<string, unknown>): Button[] {
  const accessories = blocksOf(payload)
    .map((b) => b.accessory as Button | undefined)
    .filter((b): b is Button => b !== undefined);
  return [...actionButtons(payload), ...accessories];
}

async function click(h: Harness, reply: Record<string, unknown>, button: Button) {
  return interactionReply(
    h,
    h.driver.blockAction({
      actionId: button.action_id,
      value: button.value ?? '',
      responseUrl: h.slack.responseUrl(),
      message: { ts: '1700000000.000300', blocks: reply.blocks as unknown[] },
    }),
  );
}

describe('/cometchat calls', () => {
  const h = useHarness();

  it('sends each filter as its query parameter, and since/until as Unix seconds', async () => {
    const before = Math.floor(Date.now() / 1000);
    await commandReply(
      h,
      `calls status:ended ${UID} type:video mode:meet to:group recorded transcribed since:2h until:2026-11-20 as ops-1`,
    );
    const after = Math.ceil(Date.now() / 1000);
    const [request] = listRequests(h);
    expect(listRequests(h)).toHaveLength(1);
    const { startedAt, ...query } = request?.query ?? {};
    expect(query).toEqual({
      uid: UID,
      status: 'ended',
      type: 'video',
      mode: 'meet',
      receiverType: 'group',
      hasRecording: 'true',
      hasTranscription: 'true',
      // The day ends at midnight in the person's zone: the stand-in's users are in Berlin.
      endedAt: String(Date.UTC(2026, 10, 20, 23) / 1000 - 1),
      page: '1',
      perPage: '10',
    });
    expect(Number(startedAt)).toBeGreaterThanOrEqual(before - 7_200);
    expect(Number(startedAt)).toBeLessThanOrEqual(after - 7_200);
    expect(request?.headers.onbehalfof).toBe('ops-1');
  });

  it("reads a calendar day in the person's own time zone, and says which", async () => {
    h.slack.setUsers([{ id: 'U0OPERATOR', is_admin: true, tz: 'America/Los_Angeles' }]);
    const reply = await commandReply(h, `calls ${UID} since:2026-11-20`);
    const [request] = listRequests(h);
    // Midnight in Los Angeles, eight hours behind UTC in November.
    expect(request?.query.startedAt).toBe(String(Date.UTC(2026, 10, 20, 8) / 1000));
    expect(textOf(reply)).toContain('days in `America/Los_Angeles`');
    // The zone is asked of Slack once, then kept.
    await commandReply(h, `calls ${UID} until:2026-11-21`);
    expect(h.slack.calls.filter((c) => c.method === 'users.info')).toHaveLength(1);
    expect(listRequests(h)[1]?.query.endedAt).toBe(String(Date.UTC(2026, 10, 22, 8) / 1000 - 1));
  });

  it("lists a user's calls newest first, each with Details, and pages with the filters kept", async () => {
    const first = await commandReply(h, `calls ${UID}`);
    const text = textOf(first);
    expect(text).toContain(`calls of \`${UID}\``);
    expect(text).toMatch(/Page 1 of \d+/);
    expectNoInjectedMarkup(first);
    // One table, a row per call; below it a "Details #n" button per row.
    expect(blocksOf(first).filter((b) => b.type === 'table')).toHaveLength(1);
    const rows = tableRecords(first);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((row) => row['#'])).toEqual(rows.map((_, i) => String(i + 1)));
    // Uids exactly as CometChat has them; a hostile name as the plain text it is.
    expect(rows.some((row) => row.Who?.includes(`(${UID})`))).toBe(true);
    expect(rows.map((row) => row.Who)).toContain(
      '<!channel> Support (cometchat-uid-6) → Support group 3 (support-group-3)',
    );
    expectNoInjectedMarkup(first);
    const details = buttonsOf(first).filter((b) => b.action_id === ACTIONS.callDetails);
    expect(details.map((b) => b.text.text)).toEqual(rows.map((_, i) => `Details #${i + 1}`));
    const times = [
      ...JSON.stringify(first.blocks).matchAll(/"type":"date","timestamp":(\d+)/g),
    ].map((m) => Number(m[1]));
    expect(times).toHaveLength(rows.length);
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const older = buttonsOf(first).find((b) => b.action_id.startsWith(`${ACTIONS.callsPage}_next`));
    if (!older) throw new Error(`${UID} has a single page of calls in the sandbox`);
    const second = await click(h, first, older);
    expect(second.replace_original).toBe(true);
    expect(textOf(second)).toMatch(/Page 2 of \d+/);
    expect(textOf(second)).toContain(`calls of \`${UID}\``);
    expect(listRequests(h).map((r) => [r.query.uid, r.query.page])).toEqual([
      [UID, '1'],
      [UID, '2'],
    ]);
  });

  it('opens the right call with Details', async () => {
    const list = await commandReply(h, `calls ${UID}`);
    const [details] = buttonsOf(list).filter((b) => b.action_id === ACTIONS.callDetails);
    if (!details?.value) throw new Error('no Details button');
    const { sessionId } = signedJson(details.value) as { sessionId: string };
    const call = await click(h, list, details);
    expect(call.replace_original).toBe(false);
    expect(textOf(call)).toContain(sessionId);
    const lookups = h.sandbox.requests.filter((r) => r.path.startsWith('/v3/calls/'));
    expect(lookups.map((r) => decodeURIComponent(r.path.slice('/v3/calls/'.length)))).toEqual([
      sessionId,
    ]);
  });

  it('refuses an unknown filter or a bad value in one sentence, sending nothing', async () => {
    for (const words of ['colour:red', 'status:dropped', 'since:yesterday', 'a b']) {
      const text = textOf(await commandReply(h, `calls ${words}`));
      expect(text).toContain('Accepted: a uid');
    }
    expect(listRequests(h)).toEqual([]);
  });

  it('says which filters were applied when no call matches', async () => {
    const text = textOf(await commandReply(h, 'calls nobody-has-this-uid status:rejected'));
    expect(text).toContain('No calls match: calls of `nobody-has-this-uid` · status `rejected`.');
  });

  it('shares a page in the channel, without buttons', async () => {
    const list = await commandReply(h, `calls ${UID} recorded`);
    const share = buttonsOf(list).find((b) => b.action_id === ACTIONS.shareCalls);
    if (!share) throw new Error('no share button');
    const shared = await click(h, list, share);
    expect(shared.response_type).toBe('in_channel');
    expect(buttonsOf(shared)).toEqual([]);
    expect(textOf(shared)).toContain('recorded');
  });

  it("asks the same of CometChat from the form's controls as from the command's words", async () => {
    const since = 1_763_600_000;
    await commandReply(h, `calls ${UID} status:ended type:video mode:meet to:group recorded`);
    const [byCommand] = listRequests(h);
    const mark = h.slack.calls.length;
    await h.driver.interaction(h.driver.globalShortcut({ callbackId: 'lookup_call_global' }));
    await h.slack.nextCall('views.open', mark);
    const form = [...h.slack.views.values()].at(-1);
    if (!form) throw new Error('no form');
    const chosen = (value: string) => ({
      value: { type: 'static_select', selected_option: { text: plain(value), value } },
    });
    const values = {
      ...initialStateValues(form),
      lookup_user: { user_id: { type: 'plain_text_input', value: UID } },
      lookup_status: chosen('ended'),
      lookup_type: chosen('video'),
      lookup_mode: chosen('meet'),
      lookup_to: chosen('group'),
      lookup_flags: {
        value: {
          type: 'checkboxes',
          selected_options: [{ text: plain('recorded'), value: 'recorded' }],
        },
      },
    };
    const before = h.slack.calls.length;
    await h.driver.interaction(h.driver.viewSubmission({ view: form, values }));
    await h.slack.nextCall('views.update', before);
    expect(byCommand?.query).toMatchObject({ status: 'ended', type: 'video', mode: 'meet' });
    expect(listRequests(h)[1]?.query).toEqual(byCommand?.query);
    // A picked instant bounds the search as it is.
    const second = h.slack.calls.length;
    await h.driver.interaction(
      h.driver.viewSubmission({
        view: form,
        values: {
          ...values,
          lookup_since: { value: { type: 'datetimepicker', selected_date_time: since } },
        },
      }),
    );
    await h.slack.nextCall('views.update', second);
    expect(listRequests(h)[2]?.query).toMatchObject({ startedAt: String(since) });
  });

  it("shows a user's calls from the lookup form, and pushes a call's Details over it", async () => {
    const mark = h.slack.calls.length;
    await h.driver.interaction(h.driver.globalShortcut({ callbackId: 'lookup_call_global' }));
    await h.slack.nextCall('views.open', mark);
    const form = [...h.slack.views.values()].at(-1);
    if (!form) throw new Error('no form');
    const before = h.slack.calls.length;
    const sent = await h.driver.interaction(
      h.driver.viewSubmission({
        view: form,
        values: {
          lookup_session: { session_id: { type: 'plain_text_input', value: null } },
          lookup_user: { user_id: { type: 'plain_text_input', value: UID } },
          lookup_filters: { filters: { type: 'plain_text_input', value: 'since:7d' } },
          lookup_on_behalf_of: { on_behalf_of: { type: 'plain_text_input', value: null } },
        },
      }),
    );
    expect(JSON.parse(sent.body || '{}')).toMatchObject({ response_action: 'update' });
    const filled = await h.slack.nextCall('views.update', before);
    const list = filled.args.view as Record<string, unknown>;
    expect(textOf(list)).toContain(`calls of \`${UID}\``);
    // A modal takes no table: each call is a section with its Details button beside it.
    expect(blocksOf(list).filter((b) => b.type === 'table')).toEqual([]);
    expect(listRequests(h)[0]?.query).toMatchObject({ uid: UID, page: '1' });
    const [details] = buttonsOf(list).filter((b) => b.action_id === ACTIONS.callDetails);
    if (!details?.value) throw new Error('no Details button in the modal');
    const shown = h.views().length;
    const pushMark = h.slack.calls.length;
    await h.driver.interaction(
      h.driver.blockAction({
        actionId: details.action_id,
        value: details.value,
        view: h.slack.views.get(form.id) ?? form,
      }),
    );
    await h.slack.nextCall('views.push', pushMark);
    const update = await h.slack.nextCall('views.update', pushMark);
    const { sessionId } = signedJson(details.value) as { sessionId: string };
    expect(textOf(update.args.view)).toContain(sessionId);
    expect(h.views().length).toBeGreaterThan(shown);
  });
});
