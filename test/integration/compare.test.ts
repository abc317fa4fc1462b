import { describe, expect, it } from 'vitest';
import { createMemoryStore, type Store } from '../../src/store/store.ts';
import {
  blocksOf,
  commandReply,
  expectNoInjectedMarkup,
  type Harness,
  markupOf,
  sandboxOf,
  tableRecords,
  textOf,
} from './harness.ts';
import { applyChange, driverAs, useHarnessStarter } from './support.ts';

// `/cometchat compare`: two roles' permissions, or one role's in two apps, as this app last set
// them, read from its own store: nothing is asked of CometChat.

/** The reply's summary line (its first section). */
function summary(reply: Record<string, unknown>): string {
  return markupOf(blocksOf(reply).find((b) => b.type === 'section')).join('\n');
}

/** Every request every sandbox of the harness received. */
function requestsTo(h: Harness, apps: readonly string[]) {
  return apps.flatMap((name) => sandboxOf(h, name).requests);
}

/** The reference of the change that set `role`'s map in `app`, as the store keeps it. */
async function refOf(store: Store, app: string, role: string): Promise<string> {
  const ref = (await store.getKnownPermissions(app, role))?.ref;
  if (ref === undefined) throw new Error(`no known map of ${role} in ${app}`);
  return ref;
}

/** A date cell's text as the tests read it: the ISO fallback, to the minute. */
const SET = /^deny\nas this app last set the role, \d{4}-\d\d-\d\d \d\d:\d\d \(ref ([0-9a-f]+)\)$/;

describe('/cometchat compare', () => {
  const start = useHarnessStarter();

  it('shows a role changed through the app against `default`, key by key, asking CometChat nothing', async () => {
    const store = createMemoryStore();
    const h = await start({ store });
    await applyChange(h, { role: 'admin', key: 'sendMessage', value: 'deny' });
    const ref = await refOf(store, 'default', 'admin');
    h.sandbox.requests.length = 0;

    const reply = await commandReply(h, 'compare admin default');
    const rows = tableRecords(reply);
    expect(rows).toEqual([
      {
        Key: 'Message Sending (sendMessage)',
        admin: expect.stringMatching(SET),
        default: 'allow\nthe documented default',
      },
      // A key only the service defines, held by the map CometChat answered: the shipped
      // catalogue has no default for it, so the role never changed shows it as not set.
      { Key: 'removeReaction', admin: expect.stringMatching(/^allow\n/), default: 'not set' },
    ]);
    expect(SET.exec(rows[0]?.admin ?? '')?.[1]).toBe(ref);
    expect(summary(reply)).toMatch(/^\*2 keys differ\*; \d+ keys are equal and not listed\.$/);
    expect(textOf(reply)).toContain("CometChat offers no read of a role's configured permissions");
    expect(h.sandbox.requests).toEqual([]);

    // The other way round, the columns swap; two roles never changed are the defaults, alike.
    const swapped = tableRecords(await commandReply(h, 'compare DEFAULT Admin'));
    expect(swapped[0]).toMatchObject({ default: 'allow\nthe documented default' });
    const neither = await commandReply(h, 'compare moderator guest');
    expect(summary(neither)).toBe(
      'This app has never changed `moderator` or `guest`: both are the documented defaults, and identical.',
    );
    expect(blocksOf(neither).some((b) => b.type === 'table')).toBe(false);
    expect(h.sandbox.requests).toEqual([]);
  });

  it('answers a viewer who is not an editor', async () => {
    const h = await start({ env: { VIEWERS: 'U0VIEWER', EDITORS: 'U0OPERATOR' } });
    const reply = await commandReply(h, 'compare admin default', driverAs(h, 'U0VIEWER'));
    expect(summary(reply)).toContain('both are the documented defaults, and identical');
    const stranger = await commandReply(h, 'compare admin default', driverAs(h, 'U0STRANGER'));
    expect(textOf(stranger)).toContain('VIEWERS');
  });

  it('compares the same role in two configured apps, each value with where it came from', async () => {
    const store = createMemoryStore();
    const apps = ['staging', 'prod'] as const;
    const h = await start({ apps: [...apps], store });
    await applyChange(h, { app: 'staging', role: 'admin', key: 'sendMessage', value: 'deny' });
    const stagingRef = await refOf(store, 'staging', 'admin');
    for (const name of apps) sandboxOf(h, name).requests.length = 0;

    // prod never changed admin: its values are the documented defaults.
    const first = await commandReply(h, 'compare admin staging prod');
    expect(tableRecords(first)).toEqual([
      {
        Key: 'Message Sending (sendMessage)',
        staging: expect.stringMatching(SET),
        prod: 'allow\nthe documented default',
      },
      { Key: 'removeReaction', staging: expect.stringMatching(/^allow\n/), prod: 'not set' },
    ]);
    expect(SET.exec(tableRecords(first)[0]?.staging ?? '')?.[1]).toBe(stagingRef);
    expect(textOf(first)).toContain('Compare admin in staging and prod');

    // A map of prod's, as a change made there would have left it (a value of any text).
    const staged = await store.getKnownPermissions('staging', 'admin');
    if (!staged) throw new Error('no map of staging');
    await store.setKnownPermissions({
      app: 'prod',
      role: 'admin',
      permissions: {
        ...staged.permissions,
        editMessage: 'deny',
        'sendMessage.allowedCustomTypes': ['<!channel>'],
      },
      seenAt: Date.now(),
      ref: 'feedc0de01',
    });
    const second = await commandReply(h, 'compare admin prod staging');
    const rows = tableRecords(second);
    expect(rows.map((row) => row.Key)).toEqual([
      'Message Sending Custom Types (sendMessage.allowedCustomTypes)',
      'Message Editing (editMessage)',
    ]);
    expect(rows[0]?.prod).toMatch(
      /^<!channel>\nas this app last set the role, .* \(ref feedc0de01\)$/,
    );
    expect(rows[0]?.staging).toMatch(
      new RegExp(`^no restriction\\nas this app last set the role, .* \\(ref ${stagingRef}\\)$`),
    );
    expectNoInjectedMarkup(second);

    // Two roles of one app, named first: that app's maps, and its name in the reply.
    const inProd = await commandReply(h, 'prod compare admin default');
    expect(textOf(inProd)).toContain('Compare admin and default · prod');
    expect(tableRecords(inProd).map((row) => row.Key)).toEqual([
      'Message Sending (sendMessage)',
      'Message Sending Custom Types (sendMessage.allowedCustomTypes)',
      'Message Editing (editMessage)',
      // Only the service defines it: `default`, never changed, has no value the app knows.
      'removeReaction',
    ]);
    expect(requestsTo(h, apps)).toEqual([]);
  });

  it('refuses what cannot be compared in one sentence each, reading nothing', async () => {
    const apps = ['staging', 'prod'] as const;
    const store = createMemoryStore();
    let reads = 0;
    // The store with its reads of known maps counted (its methods bound to it: it has private fields).
    const counting = new Proxy(store, {
      get(target, key) {
        if (key === 'getKnownPermissions') {
          return (app: string, role: string) => {
            reads += 1;
            return target.getKnownPermissions(app, role);
          };
        }
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const h = await start({ apps: [...apps], store: counting });
    reads = 0;
    const said = async (text: string) => summary(await commandReply(h, text));
    expect(await said('compare admin ADMIN')).toBe(
      ':warning: `admin` compared with itself differs in nothing: name two roles.',
    );
    expect(await said('compare admin prod prod')).toBe(
      ':warning: An app compared with itself differs in nothing: name two apps.',
    );
    expect(await said('compare admin staging qa')).toBe(
      ':warning: There is no app `qa`. The apps are `staging`, `prod`.',
    );
    expect(await said('compare <!channel> default')).toBe(
      ':warning: A role id is 1 to 100 characters of a-z, 0-9, `-` and `_` (see `/cometchat roles`).',
    );
    expect(await said('compare admin')).toMatch(/^:warning: Usage: `\/cometchat \[app\] compare /);
    expect(reads).toBe(0);
    // What can be compared is read: both maps.
    await commandReply(h, 'compare admin staging prod');
    expect(reads).toBe(2);
    expect(requestsTo(h, apps)).toEqual([]);
  });

  it('names the one app when an app named after the role is not it', async () => {
    const h = await start();
    const reply = await commandReply(h, 'compare admin default qa');
    expect(summary(reply)).toBe(':warning: There is no app `qa`. The only app is `default`.');
  });
});
