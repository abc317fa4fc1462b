import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Access } from '../../src/access/access.ts';
import {
  type AppSettings,
  createApps,
  openRoleButton,
  openSigned,
  openSignedOption,
  roleButtonValue,
  signedOption,
  signedValue,
  tryOpenSigned,
  UNSIGNED_REFUSAL,
  valueWriter,
} from '../../src/apps/apps.ts';
import type { CometChatClient } from '../../src/cometchat/client.ts';
import { InputError } from '../../src/replies/failure.ts';

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
    expect(apps.multiple).toBe(true);
  });

  it('opens a value signed for an app as that app', () => {
    const prod = apps.byName('prod');
    if (!prod) throw new Error('no prod');
    const opened = openSigned(apps, Page, signedValue(prod, { page: 2 }));
    expect(opened.app.name).toBe('prod');
    expect(opened.value).toEqual({ page: 2 });
  });

  it('refuses a value edited to name another app, or unsigned, when several apps exist', () => {
    const staging = apps.byName('staging');
    if (!staging) throw new Error('no staging');
    const signed = signedValue(staging, { page: 2 });
    const tampered = signed.replace('"app":"staging"', '"app":"prod"');
    expect(tampered).not.toBe(signed);
    expect(() => openSigned(apps, Page, tampered)).toThrow(InputError);
    expect(() => openSigned(apps, Page, '{"page":2}')).toThrow(InputError);
    expect(() => openSigned(apps, Page, undefined)).toThrow(InputError);
  });

  it('never puts the key in the value', () => {
    const staging = apps.byName('staging');
    if (!staging) throw new Error('no staging');
    expect(signedValue(staging, { page: 1 })).not.toContain('key-staging-1');
  });

  it('signs every value with one app too, so it stays good when a second app is added', () => {
    const only = createApps([app('default', 'key-default-3')]);
    const first = only.all[0];
    if (!first) throw new Error('no app');
    const written = valueWriter(first)({ page: 4 });
    expect(written).toMatch(/^[\w-]+\.\{/);
    expect(openSigned(only, Page, written)).toMatchObject({ value: { page: 4 } });
    // The same value, read once a second app is configured beside it.
    const grown = createApps([app('default', 'key-default-3'), app('prod', 'key-prod-2')]);
    expect(openSigned(grown, Page, written)).toMatchObject({
      app: { name: 'default' },
      value: { page: 4 },
    });
  });

  it("reads an edit button's role only from its signed value, with one app as with several", () => {
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
    // A bare role id, what versions before signing wrote, is refused with one app too.
    expect(() => openRoleButton(only, 'moderator')).toThrow(UNSIGNED_REFUSAL);
    expect(() => openRoleButton(apps, 'admin')).toThrow(UNSIGNED_REFUSAL);
  });
});

describe('the signature reader, with one app configured (the common install)', () => {
  const only = createApps([app('default', 'key-default-3')]);
  const first = only.all[0];
  if (!first) throw new Error('no app');
  const valid = signedValue(first, { page: 2 });
  const refused = (raw: string | undefined) => {
    expect(() => openSigned(only, Page, raw)).toThrow(new InputError(UNSIGNED_REFUSAL));
    expect(tryOpenSigned(only, Page, raw)).toBeUndefined();
  };

  it('opens a valid value as its app', () => {
    expect(openSigned(only, Page, valid)).toEqual({ app: first, value: { page: 2 } });
  });

  it('refuses an unsigned value, however it is written', () => {
    for (const raw of ['{"page":2}', '{"page":2,"app":"default"}', 'moderator', '', undefined])
      refused(raw);
  });

  it('refuses a value signed by another install, or for an app this install does not serve', () => {
    // The same app name, another install's key.
    const elsewhere = createApps([app('default', 'key-of-another-install')]).all[0];
    if (!elsewhere) throw new Error('no app');
    refused(signedValue(elsewhere, { page: 2 }));
    // Signed by an app this install does not serve.
    const stranger = createApps([app('prod', 'key-prod-2')]).all[0];
    if (!stranger) throw new Error('no app');
    refused(signedValue(stranger, { page: 2 }));
  });

  it('refuses a tampered value: its body, its signature, or the app it names', () => {
    refused(valid.replace('"page":2', '"page":3'));
    refused(valid.replace('"app":"default"', '"app":"prod"'));
    const flipped = `${valid[0] === 'A' ? 'B' : 'A'}${valid.slice(1)}`;
    refused(flipped);
    // A signature moved onto another value.
    const signature = valid.slice(0, valid.indexOf('.'));
    refused(`${signature}.${JSON.stringify({ page: 3, app: 'default' })}`);
  });

  it('refuses a truncated value, at any length', () => {
    for (let length = 0; length < valid.length; length += 1) refused(valid.slice(0, length));
    // The signature cut short, the body whole.
    const dot = valid.indexOf('.');
    refused(`${valid.slice(0, dot - 1)}${valid.slice(dot)}`);
  });

  it('refuses a signed value of another shape (another version) with the same sentence', () => {
    refused(signedValue(first, { page: 'two' }));
    refused(signedValue(first, { role: 'admin' }));
  });
});

describe('the option signature reader (an option holds 75 characters)', () => {
  const only = createApps([app('default', 'key-default-3')]);
  const first = only.all[0];
  if (!first) throw new Error('no app');
  const valid = signedOption(first, 'moderator');
  const several = createApps([app('staging', 'key-staging-1'), app('prod', 'key-prod-2')]);

  it('opens a valid option as its app, with one app or several', () => {
    expect(openSignedOption(only, valid)).toEqual({ app: first, text: 'moderator' });
    const staging = several.byName('staging');
    if (!staging) throw new Error('no staging');
    expect(openSignedOption(several, signedOption(staging, 'admin'))).toEqual({
      app: staging,
      text: 'admin',
    });
    // 16 characters of signature, a dot, the text.
    expect(valid).toHaveLength(17 + 'moderator'.length);
  });

  it('refuses an unsigned, tampered, truncated or foreign option', () => {
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
      signedOption(elsewhere, 'moderator'),
      signedOption(prod, 'moderator'),
      // A value's signature cut to an option's length does not pass for an option's.
      `${signedValue(first, { role: 'moderator' }).slice(0, 16)}.moderator`,
    ];
    for (const raw of cases) expect(() => openSignedOption(only, raw)).toThrow(UNSIGNED_REFUSAL);
  });
});
