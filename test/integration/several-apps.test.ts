import { describe, expect, it } from 'vitest';
import {
  SANDBOX_SESSION_IDS,
  type Sandbox,
  SECOND_SANDBOX_SESSION_IDS,
} from '../../offline/cometchat-standin/server.ts';
import type { StoredView } from '../../offline/slack-standin/web-api.ts';
import {
  confirm,
  openEditor,
  promote,
  promotionsOf,
  submitView,
} from '../../offline/stack/editor-steps.ts';
import { OFFLINE_APP_API_KEYS } from '../../offline/stack/offline-stack.ts';
import { UNSIGNED_REFUSAL } from '../../src/apps/apps.ts';
import { ACTIONS } from '../../src/slack/ids.ts';
import { createMemoryStore, type Store } from '../../src/store/store.ts';
import {
  actionButtons,
  type Button,
  blocksOf,
  commandReply,
  commandText,
  type Harness,
  interactionReply,
  sandboxOf,
  textOf,
} from './harness.ts';
import { applyChange, driverAs, reviewChange, useHarnessStarter } from './support.ts';

// Two CometChat apps served by one install, each on a sandbox of its own with its own key,
// roles and calls: `staging` (the first, so the default) and `prod`.

const KEYS = { staging: OFFLINE_APP_API_KEYS[0], prod: OFFLINE_APP_API_KEYS[1] };
type AppName = keyof typeof KEYS;

const putsTo = (sandbox: Sandbox) => sandbox.requests.filter((r) => r.method === 'PUT');

/** Clears what each sandbox received, so a step's requests can be told apart. */
function forget(h: Harness): void {
  for (const name of ['staging', 'prod']) sandboxOf(h, name).requests.length = 0;
}

/** Every request reached `name`'s sandbox with `name`'s key, and none reached the other. */
function expectOnlyReached(h: Harness, name: AppName): void {
  const other: AppName = name === 'staging' ? 'prod' : 'staging';
  const reached = sandboxOf(h, name).requests;
  expect(reached.length).toBeGreaterThan(0);
  for (const request of reached) expect(request.headers.apikey).toBe(KEYS[name]);
  expect(sandboxOf(h, other).requests).toEqual([]);
}

/** A signed value edited to name the other app, the way a forged request would. */
function renamed(raw: string, from: AppName, to: AppName): string {
  const forged = raw.replace(`"app":"${from}"`, `"app":"${to}"`);
  expect(forged).not.toBe(raw);
  return forged;
}

describe('several CometChat apps from one install', () => {
  const start = useHarnessStarter();
  const twoApps = (env: Record<string, string> = {}, store?: Store) =>
    start({ apps: ['staging', 'prod'], env, ...(store ? { store } : {}) }) as Promise<Harness>;

  it("sends a command for an app to that app's addresses with that app's key only", async () => {
    const h = await twoApps();
    for (const name of ['staging', 'prod'] as const) {
      forget(h);
      const text = await commandText(h, `${name} roles`);
      expect(text).toContain(`CometChat roles · ${name}`);
      expectOnlyReached(h, name);
    }
    // Each sandbox has roles of its own: prod's list is prod's.
    expect(await commandText(h, 'prod roles 1')).toContain('auditor');
    expect(await commandText(h, 'staging roles 1')).not.toContain('auditor');

    forget(h);
    const call = await commandText(h, `prod call ${SECOND_SANDBOX_SESSION_IDS.videoEnded}`);
    expect(call).toContain('prod');
    expectOnlyReached(h, 'prod');
    expect(sandboxOf(h, 'prod').requests.every((r) => r.host === 'call')).toBe(true);

    forget(h);
    const found = await commandText(h, 'prod calls prod-customer-1');
    expect(found).toContain('Calls · prod');
    expectOnlyReached(h, 'prod');

    // No app named: the first configured app.
    forget(h);
    await commandText(h, `call ${SANDBOX_SESSION_IDS.audioEnded}`);
    expectOnlyReached(h, 'staging');
  });

  it("follows a channel's default app, and an app named in the command over it", async () => {
    const h = await twoApps({ COMETCHAT_CHANNEL_APPS: 'C0OPS:prod' });
    forget(h);
    expect(await commandText(h, 'roles')).toContain('CometChat roles · prod');
    expectOnlyReached(h, 'prod');
    forget(h);
    expect(await commandText(h, 'staging roles')).toContain('CometChat roles · staging');
    expectOnlyReached(h, 'staging');
  });

  it('answers an unknown app name with the configured ones, sending nothing', async () => {
    const h = await twoApps();
    forget(h);
    const text = await commandText(h, 'qa roles');
    expect(text).toContain('staging');
    expect(text).toContain('prod');
    expect(sandboxOf(h, 'staging').requests).toEqual([]);
    expect(sandboxOf(h, 'prod').requests).toEqual([]);
  });

  it('`/cometchat apps` reports a refused key on one app and a working key on the other', async () => {
    const h = await twoApps({ COMETCHAT_CHANNEL_APPS: 'C0OPS:prod' });
    sandboxOf(h, 'prod').inject({ kind: 'status', status: 401, times: Number.POSITIVE_INFINITY });
    const reply = await commandReply(h, 'apps');
    const text = textOf(reply);
    const [staging, prod] = text.split(/\*prod\*/);
    expect(staging).toContain('*staging*');
    expect(staging).toContain('sandbox-app');
    expect(staging).toContain('Key works.');
    expect(prod).toContain('sandbox-app-2');
    expect(prod).toContain('<#C0OPS>');
    expect(prod).toMatch(/CometChat refused the key \(ref `[^`]+`\)/);
    for (const key of OFFLINE_APP_API_KEYS) expect(JSON.stringify(reply)).not.toContain(key);
    // A command for prod says which app refused, and which setting to check.
    const failed = await commandText(h, 'prod roles');
    expect(failed).toContain('prod: CometChat refused');
    expect(failed).toContain('COMETCHAT_PROD_API_KEY');
  });

  it('refuses buttons of one app edited to name the other', async () => {
    const h = await twoApps();
    const reply = await commandReply(h, 'staging roles');
    for (const actionId of [ACTIONS.editPermissions, ACTIONS.shareRoles]) {
      const accessories = blocksOf(reply).map((b) => b.accessory as Button | undefined);
      const button = [...actionButtons(reply), ...accessories].find(
        (b) => b?.action_id === actionId,
      );
      if (!button?.value) throw new Error(`the staging role list has no ${actionId} button`);
      forget(h);
      const opened = h.slack.calls.filter((c) => c.method === 'views.open').length;
      const answer = await interactionReply(
        h,
        h.driver.blockAction({
          actionId,
          value: renamed(button.value, 'staging', 'prod'),
          responseUrl: h.slack.responseUrl(),
          message: { ts: '1700000000.000200', blocks: reply.blocks as unknown[] },
        }),
      );
      expect(textOf(answer)).toContain(UNSIGNED_REFUSAL);
      expect(h.slack.calls.filter((c) => c.method === 'views.open')).toHaveLength(opened);
      expect(sandboxOf(h, 'prod').requests).toEqual([]);
      expect(sandboxOf(h, 'staging').requests).toEqual([]);
    }
  });

  it('refuses an editor and a confirmation of one app whose metadata was edited to name the other', async () => {
    const h = await twoApps();
    const editor = await openEditor(h, 'default', 'staging');
    expect(textOf(editor)).toContain('*App:* staging');
    forget(h);
    const forgedEditor: StoredView = {
      ...editor,
      private_metadata: renamed(String(editor.private_metadata), 'staging', 'prod'),
    };
    const review = await submitView(h, forgedEditor, {});
    expect(review.response_action).toBe('update');
    expect(textOf(review.view)).toContain(UNSIGNED_REFUSAL);

    const { confirmation } = await reviewChange(h, {
      app: 'staging',
      key: 'sendMessage',
      value: 'deny',
    });
    forget(h);
    const forgedConfirmation: StoredView = {
      ...confirmation,
      private_metadata: renamed(String(confirmation.private_metadata), 'staging', 'prod'),
    };
    const applied = await submitView(h, forgedConfirmation, {});
    expect(textOf(applied.view)).toContain(UNSIGNED_REFUSAL);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sandboxOf(h, 'prod').requests).toEqual([]);
    expect(putsTo(sandboxOf(h, 'staging'))).toEqual([]);
  });

  it('promotes an applied change to the other app after its own review, sending exactly the promoted keys', async () => {
    const store = createMemoryStore();
    const h = await twoApps({}, store);
    const staging = sandboxOf(h, 'staging');
    const prod = sandboxOf(h, 'prod');
    const { outcome } = await applyChange(h, { app: 'staging', key: 'sendMessage', value: 'deny' });
    expect(textOf(outcome)).toContain('in *staging*');
    expect(putsTo(staging)).toHaveLength(1);
    expect([...promotionsOf(outcome).keys()]).toEqual(['prod']);

    // The button's value names prod signed by staging: the app's name alone (the previous
    // version's value) is refused, asking prod nothing.
    const asked = prod.requests.length;
    const button = promotionsOf(outcome).get('prod');
    const bare = await promote(h, outcome, 'prod', { ...button, value: 'prod' });
    expect(textOf(bare)).toContain(UNSIGNED_REFUSAL);
    expect(prod.requests).toHaveLength(asked);

    const review = await promote(h, outcome, 'prod');
    const text = textOf(review);
    expect(text).toContain('Promoted from *staging*');
    expect(text).toContain('in *prod*');
    expect(text).toContain('sendMessage');
    expect(putsTo(prod)).toEqual([]);

    const promoted = await confirm(h, review);
    expect(textOf(promoted.outcome)).toContain('Resulting permissions');
    // Not offered back to staging, where it came from.
    expect(promotionsOf(promoted.outcome).size).toBe(0);
    expect(putsTo(prod)).toHaveLength(1);
    expect(prod.requests.every((r) => r.headers.apikey === KEYS.prod)).toBe(true);
    expect(putsTo(prod)[0]?.body).toEqual(putsTo(staging)[0]?.body);
    expect(putsTo(prod)[0]?.path).toBe('/v3/roles/default/permissions');

    // A second "Apply" of the same promoted confirmation sends nothing again.
    await confirm(h, review);
    expect(putsTo(prod)).toHaveLength(1);

    // The audit records link the two changes, each in its own app's trail.
    const stagingRef = (await store.listAudit({ app: 'staging', offset: 0, limit: 1 })).records[0]
      ?.ref;
    const [prodRecord] = (await store.listAudit({ app: 'prod', offset: 0, limit: 1 })).records;
    expect(stagingRef).toBeDefined();
    expect(prodRecord?.promotedFrom).toBe(stagingRef);
    expect(await commandText(h, 'prod audit')).toContain(`Promoted from the change with ref`);
  });

  it('offers no promotion to an app without the role', async () => {
    const h = await twoApps();
    // `vip` is a role of staging only.
    const { outcome } = await applyChange(h, {
      app: 'staging',
      role: 'vip',
      key: 'sendMessage',
      value: (shown) => (JSON.stringify(shown).includes('sendMessage') ? 'deny' : 'allow'),
    });
    expect(textOf(outcome)).toContain('Resulting permissions');
    expect(promotionsOf(outcome).size).toBe(0);
  });

  it('lets a person who is not an editor of prod edit staging, but neither open nor promote to prod', async () => {
    const h = await twoApps({ EDITORS: 'U0OPERATOR', COMETCHAT_PROD_EDITORS: 'U0PRODLEAD' });
    const { outcome } = await applyChange(h, { app: 'staging', key: 'sendMessage', value: 'deny' });
    expect(putsTo(sandboxOf(h, 'staging'))).toHaveLength(1);

    const refusal = await commandText(h, 'prod perms default');
    expect(refusal).toContain('COMETCHAT_PROD_EDITORS');

    const promoted = await promote(h, outcome, 'prod');
    expect(textOf(promoted)).toContain('COMETCHAT_PROD_EDITORS');
    expect(putsTo(sandboxOf(h, 'prod'))).toEqual([]);

    // prod's own editor may.
    const lead = driverAs(h, 'U0PRODLEAD');
    const mark = h.slack.calls.length;
    await lead.command('prod perms default');
    await h.slack.nextCall('views.open', mark);
  });

  it('"Look up a call" asks which app, and looks the call up there only', async () => {
    const h = await twoApps();
    const mark = h.slack.calls.length;
    await h.driver.interaction(h.driver.globalShortcut({ callbackId: 'lookup_call_global' }));
    await h.slack.nextCall('views.open', mark);
    const form = [...h.slack.views.values()].at(-1);
    if (!form) throw new Error('no form was opened');
    expect(JSON.stringify(form.blocks)).toContain('CometChat app');
    const values = (app: string) => ({
      lookup_app: { app: { type: 'static_select', selected_option: { value: app } } },
      lookup_session: {
        session_id: { type: 'plain_text_input', value: SECOND_SANDBOX_SESSION_IDS.videoEnded },
      },
      lookup_on_behalf_of: { on_behalf_of: { type: 'plain_text_input', value: null } },
    });

    forget(h);
    // A choice that is not a configured app (a forged submission): a sentence, nothing sent.
    const forged = await submitView(h, form, values('qa'));
    expect(forged.response_action).toBe('errors');
    expect(forged.errors?.lookup_app).toContain('`staging`, `prod`');
    expect(sandboxOf(h, 'staging').requests).toEqual([]);
    expect(sandboxOf(h, 'prod').requests).toEqual([]);

    const before = h.slack.calls.length;
    const pending = await submitView(h, form, values('prod'));
    expect(pending.response_action).toBe('update');
    const result = await h.slack.nextCall('views.update', before);
    expect(textOf(result.args.view)).toContain('prod');
    expectOnlyReached(h, 'prod');
  });
});
