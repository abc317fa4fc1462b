import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Access } from '../../src/access/access.ts';
import {
  type AppSettings,
  createApps,
  openRoleButton,
  openSealed,
  openSealedOption,
  roleButtonValue,
  sealFor,
  sealOption,
  tryOpenSealed,
  UNSEALED_REFUSAL,
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

  it("reads an edit button's role only from its sealed value, with one app as with several", () => {
    const only = createApps([app('default', 'key-default-3')]);
    const first = only.all[0];
    if (!first) throw new Error('no app');
    expect(openRoleButton(only, roleButtonValue(first, 'moderator'))).toMatchObject({
      app: { name: 'default' },
      role: 'moderator',
    });
    const staging = apps.byName('staging');
    if (!staging) throw new Error('no staging');
    expect(openRoleButton(apps, roleButtonValue(staging, 'admin'))).toMatchObject({
      app: { name: 'staging' },
      role: 'admin',
    });
    // A bare role id, what versions before sealing wrote, is refused with one app too.
    expect(() => openRoleButton(only, 'moderator')).toThrow(UNSEALED_REFUSAL);
    expect(() => openRoleButton(apps, 'admin')).toThrow(UNSEALED_REFUSAL);
  });
});

describe('the seal reader, with one app configured (the common install)', () => {
  const only = createApps([app('default', 'key-default-3')]);
  const first = only.all[0];
  if (!first) throw new Error('no app');
  const valid = sealFor(first, { page: 2 });
  const refused = (raw: string | undefined) => {
    expect(() => openSealed(only, Page, raw)).toThrow(new InputError(UNSEALED_REFUSAL));
    expect(tryOpenSealed(only, Page, raw)).toBeUndefined();
  };

  it('opens a valid value as its app', () => {
    expect(openSealed(only, Page, valid)).toEqual({ app: first, value: { page: 2 } });
  });

  it('refuses an unsealed value, however it is written', () => {
    for (const raw of ['{"page":2}', '{"page":2,"app":"default"}', 'moderator', '', undefined])
      refused(raw);
  });

  it('refuses a value sealed by another install, or for an app this install does not serve', () => {
    // The same app name, another install's key.
    const elsewhere = createApps([app('default', 'key-of-another-install')]).all[0];
    if (!elsewhere) throw new Error('no app');
    refused(sealFor(elsewhere, { page: 2 }));
    // Sealed by an app this install does not serve.
    const stranger = createApps([app('prod', 'key-prod-2')]).all[0];
    if (!stranger) throw new Error('no app');
    refused(sealFor(stranger, { page: 2 }));
  });

  it('refuses a tampered value: its body, its seal, or the app it names', () => {
    refused(valid.replace('"page":2', '"page":3'));
    refused(valid.replace('"app":"default"', '"app":"prod"'));
    const flipped = `${valid[0] === 'A' ? 'B' : 'A'}${valid.slice(1)}`;
    refused(flipped);
    // A seal moved onto another value.
    const seal = valid.slice(0, valid.indexOf('.'));
    refused(`${seal}.${JSON.stringify({ page: 3, app: 'default' })}`);
  });

  it('refuses a truncated value, at any length', () => {
    for (let length = 0; length < valid.length; length += 1) refused(valid.slice(0, length));
    // The seal cut short, the body whole.
    const dot = valid.indexOf('.');
    refused(`${valid.slice(0, dot - 1)}${valid.slice(dot)}`);
  });

  it('refuses a sealed value of another shape (another version) with the same sentence', () => {
    refused(sealFor(first, { page: 'two' }));
    refused(sealFor(first, { role: 'admin' }));
  });
});

describe('the option seal reader (an option holds 75 characters)', () => {
  const only = createApps([app('default', 'key-default-3')]);
  const first = only.all[0];
  if (!first) throw new Error('no app');
  const valid = sealOption(first, 'moderator');
  const several = createApps([app('staging', 'key-staging-1'), app('prod', 'key-prod-2')]);

  it('opens a valid option as its app, with one app or several', () => {
    expect(openSealedOption(only, valid)).toEqual({ app: first, text: 'moderator' });
    const staging = several.byName('staging');
    if (!staging) throw new Error('no staging');
    expect(openSealedOption(several, sealOption(staging, 'admin'))).toEqual({
      app: staging,
      text: 'admin',
    });
    // 16 characters of seal, a dot, the text.
    expect(valid).toHaveLength(17 + 'moderator'.length);
  });

  it('refuses an unsealed, tampered, truncated or foreign option', () => {
    const elsewhere = createApps([app('default', 'key-of-another-install')]).all[0];
    const prod = several.byName('prod');
    if (!elsewhere || !prod) throw new Error('no app');
    const cases = [
      'moderator',
      'default:moderator',
      '',
      undefined,
      valid.replace('moderator', 'admin'),
      `${valid[0] === 'A' ? 'B' : 'A'}${valid.slice(1)}`,
      valid.slice(0, 16),
      valid.slice(1),
      sealOption(elsewhere, 'moderator'),
      sealOption(prod, 'moderator'),
      // A value's seal cut to an option's length does not pass for an option's.
      `${sealFor(first, { role: 'moderator' }).slice(0, 16)}.moderator`,
    ];
    for (const raw of cases) expect(() => openSealedOption(only, raw)).toThrow(UNSEALED_REFUSAL);
  });
});
