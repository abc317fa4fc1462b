import { describe, expect, it } from 'vitest';
import type { Access } from '../../../src/access/access.ts';
import { createApps } from '../../../src/apps/apps.ts';
import type { CometChatClient } from '../../../src/cometchat/client.ts';
import { findUidCandidates } from '../../../src/cometchat/id-rules.ts';
import {
  findSessionIds,
  readLookupApp,
  readLookupForm,
  readSearchControls,
} from '../../../src/features/calls/call-lookup.ts';
import {
  FILTERS_INPUT,
  lookupFormView,
  ON_BEHALF_INPUT,
  SEARCH_INPUT,
  SESSION_INPUT,
  USER_INPUT,
} from '../../../src/features/calls/lookup-modal-view.ts';
import { plain } from '../../../src/slack/blocks.ts';
import { BLOCKS } from '../../../src/slack/ids.ts';

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

// The call lookup's decisions without Slack: which ids a message holds, and what a form says.

function form(sessionId: string | null, onBehalfOf: string | null = null) {
  return {
    [BLOCKS.lookupSession]: { [SESSION_INPUT]: { type: 'plain_text_input', value: sessionId } },
    [BLOCKS.lookupOnBehalfOf]: {
      [ON_BEHALF_INPUT]: { type: 'plain_text_input', value: onBehalfOf },
    },
  };
}

describe('findSessionIds', () => {
  it('finds session ids in running text, first ones first, without repeats, three at most', () => {
    const a = 'v1.us.app1.1700000000abcdef0001';
    const b = 'v1.eu.app2.1700000000abcdef0002';
    const c = 'v1.in.app3.1700000000abcdef0003';
    const d = 'v1.us.app4.1700000000abcdef0004';
    expect(findSessionIds(`call ${a} dropped, then ${b}; again ${a}, ${c} and ${d}`)).toEqual([
      a,
      b,
      c,
    ]);
    expect(findSessionIds('no id here')).toEqual([]);
  });
});

describe('readLookupForm', () => {
  it('reads a session id, trimmed, with spaces inside allowed, and an optional uid', () => {
    expect(readLookupForm(form('  a session id  ', ' cometchat-uid-1 '))).toEqual({
      sessionId: 'a session id',
      onBehalfOf: 'cometchat-uid-1',
    });
    expect(readLookupForm(form('v1.us.x.y', ''))).toEqual({
      sessionId: 'v1.us.x.y',
      onBehalfOf: undefined,
    });
  });

  it('puts each problem on its own field', () => {
    expect(readLookupForm(form('', 'ŭid'))).toEqual({
      errors: {
        [BLOCKS.lookupSession]: 'A session id cannot be empty.',
        [BLOCKS.lookupOnBehalfOf]: expect.stringContaining('letters, digits'),
      },
    });
    expect(readLookupForm(form('x'.repeat(256)))).toEqual({
      errors: { [BLOCKS.lookupSession]: 'A session id is at most 255 characters.' },
    });
  });
});

describe('the app of the lookup form', () => {
  const chose = (value: string | undefined): Parameters<typeof readLookupApp>[0] => ({
    [BLOCKS.lookupApp]: {
      app: {
        type: 'static_select',
        ...(value === undefined ? {} : { selected_option: { text: plain(value), value } }),
      },
    },
  });

  it('asks which app only when there are several, the first chosen to begin with', () => {
    expect(JSON.stringify(lookupFormView(['default']))).not.toContain(BLOCKS.lookupApp);
    expect(lookupFormView()).toEqual(lookupFormView(['default']));
    const blocks = lookupFormView(['staging', 'prod']).blocks;
    expect(blocks[0]).toMatchObject({
      block_id: BLOCKS.lookupApp,
      element: {
        options: [{ value: 'staging' }, { value: 'prod' }],
        initial_option: { value: 'staging' },
      },
    });
  });

  it('takes the chosen app, and refuses one that is not configured', () => {
    const apps = appsNamed('staging', 'prod');
    const chosen = readLookupApp(chose('prod'), apps);
    expect('app' in chosen && chosen.app.name).toBe('prod');
    for (const forged of ['qa', '', undefined]) {
      expect(readLookupApp(chose(forged), apps)).toEqual({
        errors: { [BLOCKS.lookupApp]: 'Choose one of the configured apps: `staging`, `prod`.' },
      });
    }
  });

  it('with one app, takes it whatever the form says', () => {
    const chosen = readLookupApp({}, appsNamed('default'));
    expect('app' in chosen && chosen.app.name).toBe('default');
  });
});

describe('the lookup form with a user id', () => {
  function search(fields: { session?: string; uid?: string; filters?: string; as?: string }) {
    const input = (value: string | undefined) => ({
      type: 'plain_text_input',
      value: value ?? null,
    });
    return {
      [BLOCKS.lookupSession]: { [SESSION_INPUT]: input(fields.session) },
      [BLOCKS.lookupUser]: { [USER_INPUT]: input(fields.uid) },
      [BLOCKS.lookupFilters]: { [FILTERS_INPUT]: input(fields.filters) },
      [BLOCKS.lookupOnBehalfOf]: { [ON_BEHALF_INPUT]: input(fields.as) },
    };
  }

  it("reads a user id and filters as that user's search", () => {
    expect(
      readLookupForm(search({ uid: ' cometchat-uid-2 ', filters: 'status:ended since:2d' })),
    ).toEqual({
      search: {
        uid: 'cometchat-uid-2',
        status: 'ended',
        since: { ago: 172_800 },
        onBehalfOf: undefined,
      },
    });
    expect(readLookupForm(search({ uid: 'u-1', as: 'ops-1' }))).toEqual({
      search: { uid: 'u-1', onBehalfOf: 'ops-1' },
    });
    // Typed in capitals: sent as CometChat stores uids, in lower case.
    expect(readLookupForm(search({ uid: 'U-1', as: 'Ops-1' }))).toEqual({
      search: { uid: 'u-1', onBehalfOf: 'ops-1' },
    });
    expect(readLookupForm(search({ session: 'v1.us.A.b', as: 'Ops-1' }))).toEqual({
      sessionId: 'v1.us.A.b',
      onBehalfOf: 'ops-1',
    });
  });

  it('puts a problem on the field it comes from, and sends nothing', () => {
    expect(readLookupForm(search({ session: 'v1.us.a.b', uid: 'u-1' }))).toEqual({
      errors: { [BLOCKS.lookupUser]: 'Give a session id or a user id, not both.' },
    });
    expect(readLookupForm(search({ uid: 'u-1', filters: 'colour:red' }))).toEqual({
      errors: { [BLOCKS.lookupFilters]: expect.stringContaining('There is no filter `colour`.') },
    });
    expect(readLookupForm(search({ session: 'v1.us.a.b', filters: 'recorded' }))).toEqual({
      errors: { [BLOCKS.lookupFilters]: expect.stringContaining('Filters are for a user id') },
    });
    expect(readLookupForm(search({ uid: 'u-1', filters: 'as ops-2', as: 'ops-1' }))).toHaveProperty(
      'errors',
    );
  });
});

describe("the lookup form's search controls", () => {
  const select = (value: string) => ({
    [SEARCH_INPUT]: { type: 'static_select', selected_option: { value } },
  });

  it('reads the selects, the checkboxes and the pickers; a value the form does not offer is ignored', () => {
    expect(
      readSearchControls({
        [BLOCKS.lookupStatus]: select('ended'),
        [BLOCKS.lookupType]: select('hologram'),
        [BLOCKS.lookupFlags]: {
          [SEARCH_INPUT]: { type: 'checkboxes', selected_options: [{ value: 'transcribed' }] },
        },
        [BLOCKS.lookupUntil]: {
          [SEARCH_INPUT]: { type: 'datetimepicker', selected_date_time: 1_763_600_000 },
        },
      } as never),
    ).toEqual({ status: 'ended', transcribed: true, until: { at: 1_763_600_000 } });
  });

  it('refuses a filter chosen above and typed as a word too, on the words field', () => {
    const values = {
      [BLOCKS.lookupUser]: { [USER_INPUT]: { type: 'plain_text_input', value: 'u-1' } },
      [BLOCKS.lookupFilters]: {
        [FILTERS_INPUT]: { type: 'plain_text_input', value: 'status:ongoing' },
      },
      [BLOCKS.lookupStatus]: select('ended'),
    };
    expect(readLookupForm(values as never)).toEqual({
      errors: { [BLOCKS.lookupFilters]: '`status` is chosen above and given here.' },
    });
  });

  it('never takes a user id for a filter word', () => {
    const user = (uid: string, words = '') => ({
      [BLOCKS.lookupUser]: { [USER_INPUT]: { type: 'plain_text_input', value: uid } },
      [BLOCKS.lookupFilters]: { [FILTERS_INPUT]: { type: 'plain_text_input', value: words } },
    });
    expect(readLookupForm(user('recorded') as never)).toEqual({
      search: { uid: 'recorded', onBehalfOf: undefined },
    });
    expect(readLookupForm(user('team:alice') as never)).toEqual({
      search: { uid: 'team:alice', onBehalfOf: undefined },
    });
    expect(readLookupForm(user('u-1', 'u-2') as never)).toEqual({
      errors: {
        [BLOCKS.lookupFilters]: 'The user id is given above: the words here are filters only.',
      },
    });
  });

  it('refuses pickers whose Until is before their Since', () => {
    const at = (seconds: number) => ({
      [SEARCH_INPUT]: { type: 'datetimepicker', selected_date_time: seconds },
    });
    expect(
      readLookupForm({ [BLOCKS.lookupSince]: at(2_000), [BLOCKS.lookupUntil]: at(1_000) } as never),
    ).toEqual({ errors: { [BLOCKS.lookupUntil]: 'Until is before Since: no call could match.' } });
  });

  it('searches with the controls alone, without a user id', () => {
    expect(readLookupForm({ [BLOCKS.lookupStatus]: select('unanswered') } as never)).toEqual({
      search: { status: 'unanswered', onBehalfOf: undefined },
    });
  });
});

describe('findUidCandidates', () => {
  it('picks id-like words, not ordinary words, session ids or mentions', () => {
    expect(
      findUidCandidates(
        'customer cometchat-uid-2 says v1.us.app.17000 dropped; see T-1234, user_7. <!here> Thanks',
      ),
    ).toEqual(['cometchat-uid-2', 't-1234', 'user_7']);
    expect(findUidCandidates('lunch at noon?')).toEqual([]);
  });

  it('gives each as CometChat stores it, in lower case, once', () => {
    expect(findUidCandidates('Ana_Souza called ana_souza and COMETCHAT-UID-2')).toEqual([
      'ana_souza',
      'cometchat-uid-2',
    ]);
  });

  it('leaves out emoji codes, times, dates and numbers', () => {
    expect(
      findUidCandidates(
        ':white_check_mark: call at 10:30 on 2026-11-20, ticket 4821 for ana_souza',
      ),
    ).toEqual(['ana_souza']);
  });

  it('prefills the form with the first and names the others', () => {
    const view = lookupFormView(['default'], { uid: 'u-1', others: ['u-2'] });
    expect(JSON.stringify(view.blocks)).toContain('"initial_value":"u-1"');
    expect(JSON.stringify(view.blocks)).toContain('others there: u-2');
  });
});
