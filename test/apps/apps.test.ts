import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Access } from '../../src/access/access.ts';
import {
  type AppSettings,
  createApps,
  openRoleButton,
  openSealed,
  roleButtonValue,
  sealFor,
  valueWriter,
} from '../../src/apps/apps.ts';
import type { CometChatClient } from '../../src/cometchat/client.ts';
import { InputError } from '../../src/voice/failure.ts';

const client = {} as CometChatClient;
const access = {} as Access;
const app = (name: string, apiKey: string): AppSettings => ({
  name,
  appId: `${name}-id`,
  region: 'us',
  apiKey,
  cometchat: client,
  access,
});
const Page = z.object({ page: z.number() });

describe('apps', () => {
  const apps = createApps([app('staging', 'key-staging-1'), app('prod', 'key-prod-2')], {
    C0PROD: 'prod',
  });

  it('chooses the channel default, then the first app', () => {
    expect(apps.forChannel('C0PROD').name).toBe('prod');
    expect(apps.forChannel('C0OTHER').name).toBe('staging');
    expect(apps.forChannel(undefined).name).toBe('staging');
    expect(apps.channelsOf('prod')).toEqual(['C0PROD']);
    expect(apps.several).toBe(true);
  });

  it('opens a value sealed for an app as that app', () => {
    const prod = apps.byName('prod');
    if (!prod) throw new Error('no prod');
    const opened = openSealed(apps, Page, sealFor(prod, { page: 2 }));
    expect(opened.app.name).toBe('prod');
    expect(opened.value).toEqual({ page: 2 });
  });

  it('refuses a value edited to name another app, or unsealed, when several apps exist', () => {
    const staging = apps.byName('staging');
    if (!staging) throw new Error('no staging');
    const sealed = sealFor(staging, { page: 2 });
    const tampered = sealed.replace('"app":"staging"', '"app":"prod"');
    expect(tampered).not.toBe(sealed);
    expect(() => openSealed(apps, Page, tampered)).toThrow(InputError);
    expect(() => openSealed(apps, Page, '{"page":2}')).toThrow(InputError);
    expect(() => openSealed(apps, Page, undefined)).toThrow(InputError);
  });

  it('never puts the key in the value', () => {
    const staging = apps.byName('staging');
    if (!staging) throw new Error('no staging');
    expect(sealFor(staging, { page: 1 })).not.toContain('key-staging-1');
  });

  it('reads an unsealed value of an earlier version as the only app of a single-app install', () => {
    const single = createApps([app('default', 'key-default-3')]);
    expect(openSealed(single, Page, '{"page":3}')).toMatchObject({
      app: { name: 'default' },
      value: { page: 3 },
    });
  });

  it('seals every value with one app too, so it stays good when a second app is added', () => {
    const only = createApps([app('default', 'key-default-3')]);
    const first = only.all[0];
    if (!first) throw new Error('no app');
    const written = valueWriter(first)({ page: 4 });
    expect(written).toMatch(/^[\w-]+\.\{/);
    expect(openSealed(only, Page, written)).toMatchObject({ value: { page: 4 } });
    // The same value, read once a second app is configured beside it.
    const grown = createApps([app('default', 'key-default-3'), app('prod', 'key-prod-2')]);
    expect(openSealed(grown, Page, written)).toMatchObject({
      app: { name: 'default' },
      value: { page: 4 },
    });
  });

  it("reads an edit button's bare role id (earlier versions) only with one app", () => {
    const only = createApps([app('default', 'key-default-3')]);
    expect(openRoleButton(only, 'moderator')).toMatchObject({
      app: { name: 'default' },
      role: 'moderator',
    });
    const staging = apps.byName('staging');
    if (!staging) throw new Error('no staging');
    expect(openRoleButton(apps, roleButtonValue(staging, 'admin'))).toMatchObject({
      app: { name: 'staging' },
      role: 'admin',
    });
    expect(() => openRoleButton(apps, 'admin')).toThrow(InputError);
  });
});
