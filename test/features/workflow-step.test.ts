import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Access } from '../../src/access/access.ts';
import { createApps } from '../../src/apps/apps.ts';
import type { CometChatClient } from '../../src/cometchat/client.ts';
import { OptionalText, readInputs, stepApp } from '../../src/features/workflow-step.ts';

// What every Workflow Builder step shares, without Slack: its inputs read, its app chosen.

const appsNamed = (...names: string[]) =>
  createApps(
    names.map((name) => ({
      name,
      appId: `${name}-id`,
      region: 'us',
      apiKey: `${name}-key`,
      cometchat: {} as CometChatClient,
      access: {} as Access,
    })),
  );

describe('readInputs', () => {
  const Inputs = z.object({ uid: z.string(), app: OptionalText });

  it('reads the inputs, an empty optional text as absent', () => {
    expect(readInputs(Inputs, { uid: 'alice', app: '  ' })).toEqual({ inputs: { uid: 'alice' } });
    expect(readInputs(Inputs, { uid: 'alice', app: ' prod ' })).toEqual({
      inputs: { uid: 'alice', app: 'prod' },
    });
  });

  it('names the input that is missing or of another type', () => {
    expect(readInputs(Inputs, { app: 'prod' })).toEqual({
      refusal: "The step's input `uid` is missing or not of its type.",
    });
    expect(readInputs(Inputs, { uid: 7 })).toEqual({
      refusal: "The step's input `uid` is missing or not of its type.",
    });
  });
});

describe('stepApp', () => {
  it('takes the named app, else the first, as the command does', () => {
    const apps = appsNamed('staging', 'prod');
    expect(stepApp(apps, 'prod')).toEqual({ app: apps.byName('prod') });
    expect(stepApp(apps, undefined)).toEqual({ app: apps.byName('staging') });
  });

  it('names the apps there are for a name no app has', () => {
    expect(stepApp(appsNamed('staging', 'prod'), 'test')).toEqual({
      refusal: 'There is no CometChat app `test`; the apps are `staging`, `prod`.',
    });
  });
});
