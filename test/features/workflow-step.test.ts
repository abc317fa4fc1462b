import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Access } from '../../src/access/access.ts';
import { createApps } from '../../src/apps/apps.ts';
import { outputsRefused } from '../../src/changes/index.ts';
import type { CometChatClient } from '../../src/cometchat/client.ts';
import {
  Interactivity,
  OptionalText,
  readInputs,
  stepApp,
} from '../../src/features/workflow-step.ts';

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

describe('Interactivity', () => {
  const Inputs = z.object({ interactivity: Interactivity, uid: z.string() });

  it("reads the person Slack names as the workflow's interactor, and not their secret", () => {
    const interactivity = {
      interactivity_pointer: '123.abc',
      interactor: { id: 'U0OPERATOR', secret: 'c2VjcmV0' },
    };
    expect(readInputs(Inputs, { interactivity, uid: 'alice' })).toEqual({
      inputs: {
        interactivity: { interactivity_pointer: '123.abc', interactor: { id: 'U0OPERATOR' } },
        uid: 'alice',
      },
    });
  });

  it('reads a workflow nobody started as no person, whatever user id its author set', () => {
    expect(readInputs(Inputs, { runner: 'U0LEAD', uid: 'alice' })).toEqual({
      inputs: { uid: 'alice' },
    });
  });

  it('refuses an interactivity without its interactor', () => {
    expect(readInputs(Inputs, { interactivity: { interactivity_pointer: 'x' }, uid: 'a' })).toEqual(
      { refusal: "The step's input `interactivity.interactor` is missing or not of its type." },
    );
  });
});

describe('outputsRefused', () => {
  it("names Slack's answer", () => {
    expect(outputsRefused('parameter_validation_failed')).toContain(
      '`parameter_validation_failed`',
    );
  });
});
