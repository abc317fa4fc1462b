import { describe, expect, it } from 'vitest';
import type { Role } from '../../offline/cometchat-standin/server.ts';
import {
  actionButtons,
  type Button,
  blocksOf,
  commandReply,
  expectNoInjectedMarkup,
  type Harness,
  interactionReply,
  markupOf,
  referenceOf,
  sealedJson,
  textOf,
} from './harness.ts';
import { useHarness } from './support.ts';

/** One section per role: the ones with an "Edit permissions" accessory. */
function roleSections(message: Record<string, unknown>) {
  return blocksOf(message)
    .filter((b) => b.type === 'section' && b.accessory)
    .map((b) => ({
      text: (b.text as { text: string }).text,
      button: b.accessory as Button,
    }));
}

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

  it('shows each role: name, id, description, dates, settings, metadata, an edit button', async () => {
    const reply = await commandReply(h, 'roles');
    const sections = roleSections(reply);
    expect(sections.map((s) => sealedJson(s.button.value).role)).toEqual(
      h.sandbox.state.roles.map((r) => r.role),
    );
    for (const { button } of sections) {
      expect(button.action_id).toBe('edit_permissions');
      expect(button.text.text).toBe('Edit permissions');
    }
    const admin = sections[1]?.text ?? '';
    expect(admin).toContain('*Administrator*  `admin`');
    expect(admin).toContain('Operations team: full access to users, groups, messages and calls.');
    // Slack date tokens: each reader sees their own time zone; the fallback is ISO-8601 UTC.
    expect(admin).toContain(
      'Created <!date^1689000120^{date_short_pretty} {time}|2023-07-10T14:42:00Z>',
    );
    expect(admin).toContain(
      'Updated <!date^1698765432^{date_short_pretty} {time}|2023-10-31T15:17:12Z>',
    );
    expect(admin).toContain('Metadata: `team: ops` · `escalationChannel: #cometchat-ops`');
    const defaults = sections[0]?.text ?? '';
    expect(defaults).toContain('Settings: `listUsers: all` · `sendMessagesTo: all`');
    expect(defaults).not.toContain('Updated');
    // Nested metadata is compact JSON; an empty description says so.
    expect(sections[4]?.text).toContain('`billing: {"cycle":"yearly","seats":5}`');
    expect(sections[6]?.text).toContain('_No description_');
    expect(pageIndicator(reply)).toBe('Page 1 of 1 · 10 roles');
  });

  it('escapes Slack markup that comes from role data', async () => {
    const reply = await commandReply(h, 'roles');
    expectNoInjectedMarkup(reply);
    const vip =
      roleSections(reply).find((s) => sealedJson(s.button.value).role === 'vip')?.text ?? '';
    expect(vip).toContain('&lt;!channel&gt;');
    expect(vip).toContain('&lt;@U0123ABCD&gt;');
    expect(vip).toContain('&lt;https://evil.example|click here&gt;');
    expect(vip).toContain('`note: &lt;!everyone&gt; *not bold* &amp; &lt;#C0123|general&gt;`');
    // The long name and description arrive whole (within Slack's limits) or cut with an ellipsis.
    const emea = roleSections(reply).find(
      (s) => sealedJson(s.button.value).role === 'regional-lead-emea',
    );
    expect(emea?.text).toContain('Regional lead, Europe / Middle East / Africa');
  });

  it('exactly one page: no Previous or Next, only Share', async () => {
    const reply = await commandReply(h, 'roles');
    expect(actionButtons(reply).map((b) => b.action_id)).toEqual(['share_roles']);
  });

  it('a single role', async () => {
    h.sandbox.state.roles.splice(1);
    const reply = await commandReply(h, 'roles');
    expect(roleSections(reply).map((s) => sealedJson(s.button.value).role)).toEqual(['default']);
    expect(pageIndicator(reply)).toBe('Page 1 of 1 · 1 role');
    expect(actionButtons(reply).map((b) => b.action_id)).toEqual(['share_roles']);
  });

  it('many pages: Next and Previous replace the message in place', async () => {
    h.sandbox.state.roles.push(...extraRoles(15));
    const first = await commandReply(h, 'roles');
    expect(pageIndicator(first)).toBe('Page 1 of 3 · 25 roles');
    expect(actionButtons(first).map((b) => b.text.text)).toEqual(['Next ▶', 'Share in channel']);

    const second = await click(h, first, 'roles_page_next');
    expect(second.replace_original).toBe(true);
    expect(second.response_type).toBe('ephemeral');
    expect(pageIndicator(second)).toBe('Page 2 of 3 · 25 roles');
    expect(roleSections(second).map((s) => sealedJson(s.button.value).role)).toEqual(
      h.sandbox.state.roles.slice(10, 20).map((r) => r.role),
    );
    expect(actionButtons(second).map((b) => b.text.text)).toEqual([
      '◀ Previous',
      'Next ▶',
      'Share in channel',
    ]);

    const third = await click(h, second, 'roles_page_next');
    expect(third.replace_original).toBe(true);
    expect(pageIndicator(third)).toBe('Page 3 of 3 · 25 roles');
    expect(roleSections(third)).toHaveLength(5);
    expect(actionButtons(third).map((b) => b.text.text)).toEqual([
      '◀ Previous',
      'Share in channel',
    ]);

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
    expect(roleSections(reply)).toHaveLength(0);
    const previous = actionButtons(reply).find((b) => b.action_id === 'roles_page_prev');
    expect(sealedJson(previous?.value)).toEqual({ page: 1, app: 'default' });
    const back = await click(h, reply, 'roles_page_prev');
    expect(pageIndicator(back)).toBe('Page 1 of 1 · 10 roles');
  });

  it('Share in channel posts an in_channel copy without buttons', async () => {
    const list = await commandReply(h, 'roles');
    const shared = await click(h, list, 'share_roles');
    expect(shared.response_type).toBe('in_channel');
    expect(shared.replace_original).toBe(false);
    expect(blocksOf(shared).some((b) => b.type === 'actions')).toBe(false);
    // Not even a role's own Edit button: it would act for whoever clicks it.
    expect(JSON.stringify(shared)).not.toContain('"type":"button"');
    const roleIds = (m: Record<string, unknown>) =>
      blocksOf(m).flatMap((b) => (b.type === 'section' ? [textOf(b).match(/`[^`]+`/)?.[0]] : []));
    expect(roleIds(shared)).toEqual(roleIds(list));
    expect(roleSections(list)).toHaveLength(10);
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
    const reply = await interactionReply(
      h,
      h.driver.blockAction({ actionId: 'roles_page_next', value: '{"page":"two"}' }),
    );
    expect(markupOf(reply).join('\n')).toContain(
      'That button is out of date or damaged. Run the command again.',
    );
    const ref = referenceOf(reply);
    expect(ref).toMatch(/^[0-9a-f]{10}$/);
    expect(h.logs.records().some((r) => r.ref === ref && r.level === 30)).toBe(true);
    expect(listQueries(h)).toHaveLength(0);
  });
});
