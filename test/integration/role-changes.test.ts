import { describe, expect, it } from 'vitest';
import {
  confirm,
  currentView,
  promote,
  promotionsOf,
  submitView,
} from '../../offline/stack/editor-steps.ts';
import { ACTIONS } from '../../src/slack/ids.ts';
import { createMemoryStore, type Store } from '../../src/store/store.ts';
import { actionButtons, commandReply, type Harness, sandboxOf, textOf } from './harness.ts';
import { driverAs, useHarnessStarter } from './support.ts';

// A role itself, created (empty, from a preset, as a copy), renamed, described and deleted
// through the real app: the same rules as every change (editors only, review, at most once,
// audited), against the stand-in.

const EDITORS = { EDITORS: 'U0OPERATOR,U0LEAD,U0LEAD2' };

/** What CometChat was asked to change about roles, in order. */
function roleWrites(h: Harness) {
  return h.sandbox.requests
    .filter((r) => r.path.startsWith('/v3/roles') && r.method !== 'GET')
    .map((r) => [r.method, r.path, r.body]);
}

/** `/cometchat <text>` as `user`: resolves with the modal it filled (the review, or why not). */
async function reviewOf(h: Harness, text: string, user = 'U0OPERATOR') {
  const mark = h.slack.calls.length;
  await driverAs(h, user).command(text);
  const update = await h.slack.nextCall('views.update', mark);
  return currentView(h, String(update.args.view_id));
}

describe('a role from start to end', () => {
  const start = useHarnessStarter();
  let store: Store;
  const withEditors = (env: Record<string, string> = {}) => {
    store = createMemoryStore();
    return start({ store, env: { ...EDITORS, ...env } });
  };

  it('creates a role from a preset: created, then its permissions set by one update, audited', async () => {
    const h = await withEditors();
    const review = await reviewOf(h, 'role create support-ro preset no-calls Support (read)');
    expect(textOf(review)).toContain('Create role `support-ro` named *Support (read)*');
    expect(textOf(review)).toContain('preset `no-calls`');
    expect(textOf(review)).toContain('(`initiateCall`): deny');
    const { outcome } = await confirm(h, review);
    expect(textOf(outcome)).toContain('Applied to role `support-ro` (new)');
    expect(textOf(outcome)).toContain('with 2 permissions set');
    expect(roleWrites(h)).toEqual([
      ['POST', '/v3/roles', { role: 'support-ro', name: 'Support (read)' }],
      [
        'PUT',
        '/v3/roles/support-ro/permissions',
        { permissions: { initiateCall: 'deny', joinCall: 'deny' } },
      ],
    ]);
    // In the role list, and its map known to the editor from the update's answer.
    // The eleventh role: the list's second page (ten a page).
    const list = await commandReply(h, 'roles 2');
    expect(textOf(list)).toContain('11 roles');
    expect(JSON.stringify(list)).toContain('"text":"support-ro"');
    const known = await store.getKnownPermissions('default', 'support-ro');
    expect(known?.permissions.initiateCall).toBe('deny');
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    expect(record).toMatchObject({
      outcome: 'applied',
      userId: 'U0OPERATOR',
      role: 'support-ro',
      subject: { kind: 'role', action: 'create' },
      changes: [
        { key: 'name', before: null, after: 'Support (read)' },
        { key: 'initiateCall', after: 'deny' },
        { key: 'joinCall', after: 'deny' },
      ],
    });
    // Submitted again (a double click, a replay): not sent again.
    const { outcome: again } = await confirm(h, review);
    expect(textOf(again)).toContain('already submitted once');
    expect(roleWrites(h)).toHaveLength(2);
  });

  it('creates an empty role with its id as its name, in one request', async () => {
    const h = await withEditors();
    const review = await reviewOf(h, 'role create Night-Shift');
    // CometChat lower-cases role ids: so does the app, before anything is sent.
    expect(textOf(review)).toContain('Create role `night-shift` named *night-shift*');
    await confirm(h, review);
    expect(roleWrites(h)).toEqual([
      ['POST', '/v3/roles', { role: 'night-shift', name: 'night-shift' }],
    ]);
  });

  it('copies what the app last saw of another role, and refuses to copy a role it never saw', async () => {
    const h = await withEditors();
    const never = await reviewOf(h, 'role create vip-2 from vip');
    expect(textOf(never)).toContain('has not seen the permissions of `vip` yet');
    await store.setKnownPermissions({
      app: 'default',
      role: 'vip',
      permissions: { sendMessage: 'allow', 'sendMessage.mode': 'friends', listUsers: 'allow' },
      seenAt: 1,
    });
    const review = await reviewOf(h, 'role create vip-2 from vip VIP two');
    expect(textOf(review)).toContain('a copy of `vip` as this app last saw it');
    await confirm(h, review);
    // Only what differs from the defaults is set.
    expect(roleWrites(h).at(-1)).toEqual([
      'PUT',
      '/v3/roles/vip-2/permissions',
      { permissions: { 'sendMessage.mode': 'friends' } },
    ]);
  });

  it('removes a new role again when CometChat refuses its permissions: nothing is left half made', async () => {
    const h = await withEditors();
    const review = await reviewOf(h, 'role create half preset read-only');
    h.sandbox.inject({ kind: 'status', status: 400, method: 'PUT', pathIncludes: '/permissions' });
    const { outcome } = await confirm(h, review);
    expect(textOf(outcome)).toContain('the role was removed again');
    expect(h.sandbox.state.roles.some((r) => r.role === 'half')).toBe(false);
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    expect(record).toMatchObject({ outcome: 'failed', errorKind: 'not_taken' });
  });

  it('renames and describes a role, and says when the name is the same already', async () => {
    const h = await withEditors();
    const before = h.sandbox.state.roles.find((r) => r.role === 'vip')?.name;
    const same = await reviewOf(h, `role rename vip ${before}`);
    expect(textOf(same)).toContain('has that name already');
    const review = await reviewOf(h, 'role rename vip Very <important> person');
    expect(textOf(review)).toContain('to *Very &lt;important&gt; person*');
    const { outcome } = await confirm(h, review);
    expect(textOf(outcome)).toContain('Applied to role `vip`');
    expect(h.sandbox.state.roles.find((r) => r.role === 'vip')?.name).toBe(
      'Very <important> person',
    );
    const describe = await reviewOf(h, 'role describe vip Paying customers');
    await confirm(h, describe);
    expect(roleWrites(h)).toEqual([
      ['PUT', '/v3/roles/vip', { name: 'Very <important> person' }],
      ['PUT', '/v3/roles/vip', { description: 'Paying customers' }],
    ]);
  });

  it('sends nothing when the role was renamed elsewhere between the review and Apply, role list cached or not', async () => {
    // The role list is kept 30 s as it is in production: the check reads past it.
    const h = await withEditors({ COMETCHAT_ROLE_CACHE_SECONDS: '30' });
    const review = await reviewOf(h, 'role rename vip Gold');
    const role = h.sandbox.state.roles.find((r) => r.role === 'vip');
    if (role) role.name = 'Platinum';
    const { outcome } = await confirm(h, review);
    expect(textOf(outcome)).toContain(
      'Someone changed the name or description of `vip` since the review, so nothing was sent.',
    );
    expect(roleWrites(h)).toEqual([]);
  });

  it('deletes a role after saying how many users hold it; `default` never, before any request', async () => {
    const h = await withEditors();
    const refused = await commandReply(h, 'role delete default');
    expect(textOf(refused)).toContain('The role `default` cannot be deleted');
    expect(h.slack.calls.filter((c) => c.method === 'views.open')).toEqual([]);
    const holders = [...h.sandbox.state.users.values()].filter((u) => u.role === 'vip').length;
    const review = await reviewOf(h, 'role delete vip');
    expect(textOf(review)).toContain('Delete role `vip`');
    expect(textOf(review)).toContain(
      holders === 0 ? 'No user holds it.' : `${holders} user${holders === 1 ? '' : 's'} hold it`,
    );
    const { outcome } = await confirm(h, review);
    expect(textOf(outcome)).toContain('Applied to role `vip`: deleted');
    expect(roleWrites(h)).toEqual([['DELETE', '/v3/roles/vip', undefined]]);
    expect(h.sandbox.state.roles.some((r) => r.role === 'vip')).toBe(false);
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    expect(record).toMatchObject({
      subject: { kind: 'role', action: 'delete' },
      changes: [{ key: 'role', before: 'vip', after: null }],
    });
  });

  it('refuses a 26th role with a sentence before anything is sent', async () => {
    const h = await withEditors();
    const now = h.sandbox.state.roles.length;
    for (let i = now; i < 25; i += 1) {
      h.sandbox.state.roles.push({
        role: `filler-${i}`,
        name: `Filler ${i}`,
        description: '',
        createdAt: 1,
      });
    }
    const refused = await reviewOf(h, 'role create one-too-many');
    expect(textOf(refused)).toContain('CometChat keeps at most 25');
    expect(roleWrites(h)).toEqual([]);
  });

  it('refuses a non-editor, typed or forged, and sends nothing', async () => {
    const h = await withEditors();
    const typed = await commandReply(h, 'role create nope', driverAs(h, 'U0VIEWER'));
    expect(textOf(typed)).toMatch(/may (edit|change)/);
    const review = await reviewOf(h, 'role delete vip');
    // The review's Apply, submitted by someone who may not edit: checked again on the server.
    const viewer = driverAs(h, 'U0VIEWER');
    await viewer.interaction(viewer.viewSubmission({ view: review, values: {} }));
    expect(roleWrites(h)).toEqual([]);
    expect(h.sandbox.state.roles.some((r) => r.role === 'vip')).toBe(true);
  });

  it('with approvals on, deletes only once a second editor approves, audited with both', async () => {
    const h = await withEditors({ APPROVAL_CHANNEL: 'C0APPROVE' });
    const review = await reviewOf(h, 'role delete vip');
    expect(textOf(review)).toContain('Ask for approval in <#C0APPROVE>');
    const mark = h.slack.calls.length;
    await submitView(h, review, {
      approval_reason: { reason: { type: 'plain_text_input', value: 'retired plan' } },
    });
    const post = await h.slack.nextCall('chat.postMessage', mark);
    // The approver is told who holds the role, counted as the requester's review counted them.
    const holders = [...h.sandbox.state.users.values()].filter((u) => u.role === 'vip').length;
    expect(holders).toBeGreaterThan(1);
    expect(textOf(post.args)).toContain(
      `<@U0OPERATOR> asks to delete role \`vip\`. ${holders} users hold it (deactivated ones included).`,
    );
    const counts = h.sandbox.requests.filter(
      (r) => r.path === '/v3/users' && r.query.role === 'vip',
    );
    expect(counts.length).toBeGreaterThanOrEqual(2);
    expect(counts.every((r) => r.query.withDeactivated === 'true')).toBe(true);
    expect(roleWrites(h)).toEqual([]);
    const blocks = post.args.blocks as unknown[];
    const approve = actionButtons({ blocks }).find((b) => b.action_id === ACTIONS.approveChange);
    const lead = driverAs(h, 'U0LEAD');
    const decided = h.slack.calls.length;
    await lead.interaction(
      lead.blockAction({
        actionId: ACTIONS.approveChange,
        value: approve?.value ?? '',
        responseUrl: h.slack.responseUrl(),
        message: { ts: '1700000000.000300', blocks },
      }),
    );
    const update = await h.slack.nextCall('chat.update', decided);
    expect(textOf(update.args)).toContain('Approved by <@U0LEAD> and applied');
    expect(roleWrites(h)).toEqual([['DELETE', '/v3/roles/vip', undefined]]);
    const [record] = (await store.listAudit({ offset: 0, limit: 1 })).records;
    expect(record).toMatchObject({
      userId: 'U0OPERATOR',
      subject: { kind: 'role', action: 'delete' },
      approval: { approvedBy: 'U0LEAD', reason: 'retired plan' },
    });
  });

  it('offers a created role to another app through its own review, and a deletion to where the role is', async () => {
    store = createMemoryStore();
    const h = await start({ apps: ['staging', 'prod'], store, env: EDITORS });
    const review = await reviewOf(h, 'staging role create night preset no-calls Night');
    const { outcome } = await confirm(h, review);
    expect(textOf(outcome)).toContain('Applied to role `night` (new) in *staging*');
    // prod has no role `night`: the same creation is offered there, through prod's review.
    expect([...promotionsOf(outcome).keys()]).toEqual(['prod']);
    const prodReview = await promote(h, outcome, 'prod');
    expect(textOf(prodReview)).toContain('create role `night`');
    expect(textOf(prodReview)).toContain('(`initiateCall`): deny');
    const { outcome: inProd } = await confirm(h, prodReview);
    expect(textOf(inProd)).toContain('Applied to role `night` (new) in *prod*');
    const prodWrites = sandboxOf(h, 'prod')
      .requests.filter((r) => r.path.startsWith('/v3/roles') && r.method !== 'GET')
      .map((r) => [r.method, r.path]);
    expect(prodWrites).toEqual([
      ['POST', '/v3/roles'],
      ['PUT', '/v3/roles/night/permissions'],
    ]);
    const [record] = (await store.listAudit({ app: 'prod', offset: 0, limit: 1 })).records;
    expect(record).toMatchObject({ subject: { kind: 'role', action: 'create' } });
    expect(record?.promotedFrom).toBeDefined();
    // Not offered back to staging, where it came from.
    expect(promotionsOf(inProd).size).toBe(0);

    // Deleted in staging: offered to prod, which has the role now.
    const removal = await reviewOf(h, 'staging role delete night');
    const { outcome: removed } = await confirm(h, removal);
    expect([...promotionsOf(removed).keys()]).toEqual(['prod']);
    const prodRemoval = await promote(h, removed, 'prod');
    expect(textOf(prodRemoval)).toContain('delete role `night`');
    expect(textOf(prodRemoval)).toContain('No user holds it there.');
    await confirm(h, prodRemoval);
    expect(sandboxOf(h, 'prod').state.roles.some((r) => r.role === 'night')).toBe(false);
  });
});
