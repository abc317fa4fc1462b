import { describe, expect, it } from 'vitest';
import type { Role } from '../../offline/cometchat-standin/server.ts';
import { UNSIGNED_REFUSAL } from '../../src/apps/apps.ts';
import {
  actionButtons,
  type Button,
  blocksOf,
  commandReply,
  expectNoInjectedMarkup,
  type Harness,
  interactionReply,
  logsWithRef,
  markupOf,
  referenceOf,
  signedJson,
  signedTestValue,
  tableRecords,
  tableRows,
  textOf,
} from './harness.ts';
import { useHarness } from './support.ts';

/** The list's "Edit <role id>" buttons, one below the table for each role that has one. */
function editButtons(message: Record<string, unknown>): Button[] {
  return actionButtons(message).filter((b) => b.action_id === 'edit_permissions');
}

/** The role each Edit button opens, by its value. */
const editedRoles = (message: Record<string, unknown>) =>
  editButtons(message).map((b) => signedJson(b.value).role);

/** The page and share buttons. */
const pageButtons = (message: Record<string, unknown>) =>
  actionButtons(message).filter((b) => b.action_id !== 'edit_permissions');

/** The role ids of the table's rows, in order. */
const listedRoles = (message: Record<string, unknown>) =>
  tableRecords(message).map((row) => row['Role id']);

function pageIndicator(message: Record<string, unknown>): string {
  return markupOf(blocksOf(message).find((b) => b.type === 'context')).join('\n');
}

function listQueries(h: Harness) {
  return h.sandbox.requests.filter((r) => r.path === '/v3/roles').map((r) => r.query);
}

function extraRoles(count: number): Role[] {
  return Array.from({ length: count }, (_, i) => ({
    role: `extra-${String(i + 1).padStart(2, '0')}`,
    name: `Extra ${i + 1}`,
    description: `Generated role ${i + 1}.`,
    createdAt: 1_690_000_000 + i,
  }));
}

/** Clicks a button of `message` the way Slack sends it: the message comes along. */
function click(h: Harness, message: Record<string, unknown>, actionId: string) {
  return interactionReply(
    h,
    h.driver.blockAction({
      actionId,
      message: { ts: '1700000000.000100', blocks: blocksOf(message) },
    }),
  );
}

describe('/cometchat roles through the real app', () => {
  const h = useHarness();

  it('acknowledges at once and replies with the first page of roles', async () => {
    const sent = await h.driver.command('roles');
    expect(sent.status).toBe(200);
    const reply = await h.slack.nextResponse(0);
    const text = textOf(reply.body);
    expect(text).toContain('CometChat roles');
    expect(text).toContain('default');
    expect(reply.body.response_type).toBe('ephemeral');
    const listCalls = h.sandbox.requests.filter((r) => r.path.startsWith('/v3/roles'));
    expect(listCalls).toHaveLength(1);
    expect(listCalls[0]?.query).toMatchObject({ page: '1', perPage: '10' });
  });

  it('shows each role in a table row: name, id, description, dates, settings, metadata', async () => {
    const reply = await commandReply(h, 'roles');
    expect(blocksOf(reply).filter((b) => b.type === 'table')).toHaveLength(1);
    expect(tableRows(reply)[0]).toEqual([
      '#',
      'Name',
      'Role id',
      'Users',
      'Description',
      'Created',
      'Updated',
      'Settings',
      'Metadata',
    ]);
    const rows = tableRecords(reply);
    expect(rows.map((row) => row['#'])).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
      '10',
    ]);
    expect(listedRoles(reply)).toEqual(h.sandbox.state.roles.map((r) => r.role));
    expect(rows[1]).toEqual({
      '#': '2',
      Name: 'Administrator',
      'Role id': 'admin',
      // cometchat-uid-1 and ops-lead: CometChat's count of the role's (active) users.
      Users: '2',
      Description: 'Operations team: full access to users, groups, messages and calls.',
      Created: '2023-07-10 14:42',
      Updated: '2023-10-31 15:17',
      Settings: '—',
      Metadata: 'team: ops · escalationChannel: #cometchat-ops',
    });
    // Slack's date element: each reader sees their own time zone; the fallback is ISO-8601 UTC.
    expect(JSON.stringify(reply.blocks)).toContain(
      '{"type":"date","timestamp":1698765432,"format":"{date_short_pretty} {time}","fallback":"2023-10-31T15:17:12Z"}',
    );
    expect(rows[0]?.Settings).toBe('listUsers: all · sendMessagesTo: all');
    expect(rows[0]?.Updated).toBe('—');
    // Nested metadata is compact JSON; an empty description shows a dash.
    expect(rows[4]?.Metadata).toContain('billing: {"cycle":"yearly","seats":5}');
    expect(rows[6]?.Description).toBe('—');
    expect(pageIndicator(reply)).toBe('Page 1 of 1 · 10 roles');
  });

  it('gives each role an Edit button below the table, naming it, opening the editor as before', async () => {
    const reply = await commandReply(h, 'roles');
    expect(editedRoles(reply)).toEqual(listedRoles(reply));
    for (const button of editButtons(reply)) {
      expect(button.text.text).toBe(`Edit ${signedJson(button.value).role}`);
    }
  });

  it('shows markup from role data as plain text: exact, never a mention or a link', async () => {
    const reply = await commandReply(h, 'roles');
    expectNoInjectedMarkup(reply);
    const vip = tableRecords(reply).find((row) => row['Role id'] === 'vip');
    expect(vip?.Name).toContain('<!channel>');
    expect(vip?.Name).toContain('<@U0123ABCD>');
    expect(vip?.Description).toContain('<https://evil.example|click here>');
    expect(vip?.Metadata).toBe('note: <!everyone> *not bold* & <#C0123|general>');
    // Raw text cells: nothing escaped, nothing invisible added, so what is copied is exact.
    const service = h.sandbox.state.roles.find((r) => r.role === 'vip');
    expect([vip?.Name, vip?.Description]).toEqual([service?.name, service?.description]);
    expect(JSON.stringify(tableRows(reply))).not.toMatch(/\u200b/);
    // The long name and description arrive whole (within Slack's limits) or cut with an ellipsis.
    const emea = tableRecords(reply).find((row) => row['Role id'] === 'regional-lead-emea');
    expect(emea?.Name).toContain('Regional lead, Europe / Middle East / Africa');
  });

  it('exactly one page: no Previous or Next, only Share', async () => {
    const reply = await commandReply(h, 'roles');
    expect(pageButtons(reply).map((b) => b.action_id)).toEqual(['share_roles']);
  });

  it('a single role', async () => {
    h.sandbox.state.roles.splice(1);
    const reply = await commandReply(h, 'roles');
    expect(editedRoles(reply)).toEqual(['default']);
    expect(listedRoles(reply)).toEqual(['default']);
    expect(pageIndicator(reply)).toBe('Page 1 of 1 · 1 role');
    expect(pageButtons(reply).map((b) => b.action_id)).toEqual(['share_roles']);
  });

  it('many pages: Next and Previous replace the message in place', async () => {
    h.sandbox.state.roles.push(...extraRoles(15));
    const first = await commandReply(h, 'roles');
    expect(pageIndicator(first)).toBe('Page 1 of 3 · 25 roles');
    expect(pageButtons(first).map((b) => b.text.text)).toEqual(['Next ▶', 'Share in channel']);

    const second = await click(h, first, 'roles_page_next');
    expect(second.replace_original).toBe(true);
    expect(second.response_type).toBe('ephemeral');
    expect(pageIndicator(second)).toBe('Page 2 of 3 · 25 roles');
    expect(editedRoles(second)).toEqual(h.sandbox.state.roles.slice(10, 20).map((r) => r.role));
    expect(tableRecords(second).map((row) => row['#'])[0]).toBe('1');
    expect(pageButtons(second).map((b) => b.text.text)).toEqual([
      '◀ Previous',
      'Next ▶',
      'Share in channel',
    ]);

    const third = await click(h, second, 'roles_page_next');
    expect(third.replace_original).toBe(true);
    expect(pageIndicator(third)).toBe('Page 3 of 3 · 25 roles');
    expect(listedRoles(third)).toHaveLength(5);
    expect(pageButtons(third).map((b) => b.text.text)).toEqual(['◀ Previous', 'Share in channel']);

    const back = await click(h, third, 'roles_page_prev');
    expect(back.replace_original).toBe(true);
    expect(pageIndicator(back)).toBe('Page 2 of 3 · 25 roles');
    expect(listQueries(h).map((q) => q.page)).toEqual(['1', '2', '3', '2']);
  });

  it('`roles <page>` opens that page', async () => {
    h.sandbox.state.roles.push(...extraRoles(15));
    const reply = await commandReply(h, 'roles 3');
    expect(pageIndicator(reply)).toBe('Page 3 of 3 · 25 roles');
    expect(listQueries(h)).toEqual([{ page: '3', perPage: '10' }]);
  });

  it('a page beyond the end says which page is the last and offers the way back', async () => {
    const reply = await commandReply(h, 'roles 7');
    expect(textOf(reply)).toContain('There is no page 7; the last page is 1.');
    expect(tableRows(reply)).toEqual([]);
    const previous = actionButtons(reply).find((b) => b.action_id === 'roles_page_prev');
    expect(signedJson(previous?.value)).toEqual({ page: 1, app: 'default' });
    const back = await click(h, reply, 'roles_page_prev');
    expect(pageIndicator(back)).toBe('Page 1 of 1 · 10 roles');
  });

  it('Share in channel posts an in_channel copy without buttons', async () => {
    const list = await commandReply(h, 'roles');
    const shared = await click(h, list, 'share_roles');
    expect(shared.response_type).toBe('in_channel');
    expect(shared.replace_original).toBe(false);
    expect(blocksOf(shared).some((b) => b.type === 'actions')).toBe(false);
    // Not even a role's Edit button: it would act for whoever clicks it.
    expect(JSON.stringify(shared)).not.toContain('"type":"button"');
    expect(tableRows(shared)).toEqual(tableRows(list));
    expect(listedRoles(list)).toHaveLength(10);
    expectNoInjectedMarkup(shared);
  });

  it('Share still reaches the channel when the response_url is refused', async () => {
    const list = await commandReply(h, 'roles');
    h.slack.failResponseUrls(404);
    const before = h.slack.calls.length;
    await h.driver.interaction(
      h.driver.blockAction({
        actionId: 'share_roles',
        message: { ts: '1700000000.000100', blocks: blocksOf(list) },
      }),
    );
    const posted = await h.slack.nextCall('chat.postMessage', before);
    expect(posted.args.channel).toBe('C0OPS');
    expect(textOf(posted.args)).toContain('CometChat roles');
    expect(h.slack.calls.slice(before).map((c) => c.method)).not.toContain('conversations.open');
  });

  it('a reply still reaches the user as an ephemeral message when the response_url fails', async () => {
    h.slack.failResponseUrls(500);
    await h.driver.command('roles');
    const posted = await h.slack.nextCall('chat.postEphemeral');
    expect(posted.args).toMatchObject({ channel: 'C0OPS', user: 'U0OPERATOR' });
    expect(pageIndicator(posted.args)).toBe('Page 1 of 1 · 10 roles');
    expect(h.logs.text()).toContain('response_url refused the reply; falling back');
  });

  it('and as a direct message when the channel refuses the ephemeral one too', async () => {
    h.slack.failResponseUrls(404);
    h.slack.fail('chat.postEphemeral', { error: 'channel_not_found' });
    await h.driver.command('roles');
    const posted = await h.slack.nextCall('chat.postMessage');
    expect(String(posted.args.channel)).toMatch(/^D/);
    expect(pageIndicator(posted.args)).toBe('Page 1 of 1 · 10 roles');
    expect(h.slack.calls.map((c) => c.method)).toContain('conversations.open');
  });

  it('a damaged page button is refused with one sentence and a reference', async () => {
    // Signed as the app signs, yet not a page: a value of another shape (another version).
    const reply = await interactionReply(
      h,
      h.driver.blockAction({
        actionId: 'roles_page_next',
        value: signedTestValue(h, { page: 'two' }),
      }),
    );
    expect(markupOf(reply).join('\n')).toContain(UNSIGNED_REFUSAL);
    const ref = referenceOf(reply);
    expect(ref).toMatch(/^[0-9a-f]{10}$/);
    expect(logsWithRef(h, ref ?? '').some((r) => r.log.level === 'info')).toBe(true);
    expect(listQueries(h)).toHaveLength(0);
  });
});
