import type { BlockSuggestion } from '@slack/bolt';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { CometChatApp } from '../../src/apps/apps.ts';
import type { UserPage } from '../../src/cometchat/model.ts';
import type { Role } from '../../src/cometchat/schemas.ts';
import {
  createRoleOptions,
  createUserSearchOptions,
  OPTIONS_DEADLINE_MS,
  type OptionsArgs,
  PICK_OR_PASTE_SENTENCE,
  pickedOrPasted,
  roleOptions,
  userOption,
  userOptions,
} from '../../src/features/options.ts';
import { runInRequest } from '../../src/request-context.ts';
import { plain, SELECT_OPTIONS_LIMIT } from '../../src/slack/blocks.ts';

const FIELDS = {
  pick: { block: 'pick', action: 'select' },
  paste: { block: 'paste', action: 'text' },
};

function state(picked?: string, pasted?: string) {
  return {
    pick: {
      select: {
        type: 'external_select',
        selected_option: picked === undefined ? null : { text: plain(picked), value: picked },
      },
    },
    paste: { text: { type: 'plain_text_input', value: pasted ?? null } },
  };
}

const role = (id: string, name = id): Pick<Role, 'role' | 'name'> => ({ role: id, name });

describe('the options of a user select', () => {
  it('shows the name with the uid whole, the value the uid', () => {
    expect(userOption({ uid: 'ana_souza', name: 'Ana Souza' })).toEqual({
      text: { type: 'plain_text', text: 'Ana Souza (ana_souza)', emoji: true },
      value: 'ana_souza',
    });
    // A name that is the uid is said once.
    expect(userOption({ uid: 'bot-7', name: 'bot-7' }).text.text).toBe('bot-7');
  });

  it('shortens a long name, never the uid, within Slack’s 75 characters', () => {
    const uid = 'cometchat-uid-1';
    const option = userOption({ uid, name: 'N'.repeat(200) });
    expect(option.text.text.length).toBeLessThanOrEqual(75);
    expect(option.text.text.endsWith(` (${uid})`)).toBe(true);
    expect(option.value).toBe(uid);
  });

  it('keeps a name with markup as plain text (no mrkdwn is parsed in an option)', () => {
    const option = userOption({ uid: 'u-1', name: '*VIP* <!channel>' });
    expect(option.text).toMatchObject({ type: 'plain_text', text: '*VIP* <!channel> (u-1)' });
  });

  it('gives at most Slack’s hundred', () => {
    const users = Array.from({ length: 250 }, (_, i) => ({ uid: `u-${i}`, name: `U ${i}` }));
    expect(userOptions(users)).toHaveLength(SELECT_OPTIONS_LIMIT);
  });
});

describe('the options of a role select', () => {
  const roles = [
    role('default', 'Default'),
    role('admin', 'Administrator'),
    role('support-agent', 'Support agent'),
    role('vip', '*VIP* <!channel>'),
    role('regional-lead', 'Lead of the Admin team'),
  ];

  it('lists every role but the one left out when nothing is typed', () => {
    expect(roleOptions(roles, '', 'default').map((o) => o.value)).toEqual([
      'admin',
      'support-agent',
      'vip',
      'regional-lead',
    ]);
  });

  it('keeps the roles whose id or name holds the text, whatever the case, starts first', () => {
    expect(roleOptions(roles, 'ADMIN').map((o) => o.value)).toEqual(['admin', 'regional-lead']);
    expect(roleOptions(roles, 'agent').map((o) => o.value)).toEqual(['support-agent']);
    expect(roleOptions(roles, 'nothing like it')).toEqual([]);
  });

  it('shows the name and the id, the value the id', () => {
    expect(roleOptions(roles, 'vip')).toEqual([
      { text: { type: 'plain_text', text: '*VIP* <!channel> (vip)', emoji: true }, value: 'vip' },
    ]);
    expect(roleOptions([role('guest')], '')[0]?.text.text).toBe('guest');
  });

  it('gives at most Slack’s hundred', () => {
    const many = Array.from({ length: 150 }, (_, i) => role(`r-${i}`));
    expect(roleOptions(many, 'r-')).toHaveLength(SELECT_OPTIONS_LIMIT);
  });
});

describe('a select and the text field beside it', () => {
  it('takes the one given, trimmed', () => {
    expect(pickedOrPasted(state('ana'), FIELDS)).toEqual({ id: 'ana' });
    expect(pickedOrPasted(state(undefined, '  ana  '), FIELDS)).toEqual({ id: 'ana' });
    expect(pickedOrPasted(state('ana', 'ana'), FIELDS)).toEqual({ id: 'ana' });
  });

  it('gives nothing for neither, and one sentence for two different ones', () => {
    expect(pickedOrPasted(state(), FIELDS)).toEqual({ id: '' });
    expect(pickedOrPasted({}, FIELDS)).toEqual({ id: '' });
    expect(pickedOrPasted(state('ana', 'bob'), FIELDS)).toEqual({
      problem: PICK_OR_PASTE_SENTENCE,
    });
  });
});

// The listeners, with a fake client: the clock is the test's, so "the deadline has passed" is
// a fact of the test, not a wait.

const RECEIVED_AT = 1_000_000;

function suggestion(value: string): BlockSuggestion {
  return {
    type: 'block_suggestion',
    block_id: 'pick',
    action_id: 'select',
    value,
  } as BlockSuggestion;
}

async function answer(
  listener: (args: OptionsArgs) => Promise<void>,
  value: string,
): Promise<unknown[]> {
  const acks: unknown[] = [];
  const ack = async (response: unknown) => {
    acks.push(response);
  };
  const log = pino({ level: 'silent' });
  await runInRequest({ ref: 'ref0000049', log, receivedAt: RECEIVED_AT }, () =>
    listener({ ack, body: suggestion(value) } as unknown as OptionsArgs),
  );
  expect(acks).toHaveLength(1);
  return (acks[0] as { options: unknown[] }).options;
}

/** An app whose client answers the user search and the role list as told. */
function appWith(client: {
  listUsers?: (query: unknown, options?: { signal?: AbortSignal }) => Promise<UserPage>;
  listAllRoles?: () => Promise<Role[]>;
}): CometChatApp {
  return { cometchat: client } as unknown as CometChatApp;
}

/** Never answers; rejects with the signal's reason when it aborts (as ky does). */
function stalled(_query: unknown, options?: { signal?: AbortSignal }): Promise<UserPage> {
  return new Promise((_resolve, reject) => {
    const signal = options?.signal;
    if (!signal) return;
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

describe('the options listeners', () => {
  const early = () => RECEIVED_AT + 10;
  const late = () => RECEIVED_AT + OPTIONS_DEADLINE_MS;

  it('answers the search by the typed text, with a signal for the request', async () => {
    const asked: unknown[] = [];
    const app = appWith({
      listUsers: async (query, options) => {
        asked.push(query, options?.signal instanceof AbortSignal);
        return {
          users: [{ uid: 'ana_souza', name: 'Ana Souza', role: 'default', status: 'offline' }],
          pagination: { total: 1, count: 1, per_page: 100, current_page: 1, total_pages: 1 },
        };
      },
    });
    const options = await answer(
      createUserSearchOptions(() => app, early),
      ' ana ',
    );
    expect(options).toEqual([userOption({ uid: 'ana_souza', name: 'Ana Souza' })]);
    expect(asked).toEqual([{ searchKey: 'ana', page: 1, perPage: SELECT_OPTIONS_LIMIT }, true]);
  });

  it('gives up the request at the deadline and answers no options', async () => {
    const app = appWith({ listUsers: stalled });
    expect(
      await answer(
        createUserSearchOptions(() => app, late),
        'ana',
      ),
    ).toEqual([]);
  });

  it('answers no options when the search fails, or there is no app or text', async () => {
    const failing = appWith({ listUsers: () => Promise.reject(new Error('503')) });
    expect(
      await answer(
        createUserSearchOptions(() => failing, early),
        'ana',
      ),
    ).toEqual([]);
    expect(
      await answer(
        createUserSearchOptions(() => undefined, early),
        'ana',
      ),
    ).toEqual([]);
    const unused = appWith({ listUsers: () => Promise.reject(new Error('not asked')) });
    expect(
      await answer(
        createUserSearchOptions(() => unused, early),
        '  ',
      ),
    ).toEqual([]);
  });

  it('answers the roles that match, leaving out the user’s own', async () => {
    const app = appWith({
      listAllRoles: async () => [role('vip', 'VIP'), role('default', 'Default')] as Role[],
    });
    const listener = createRoleOptions(() => ({ app, except: 'default' }), early);
    expect(await answer(listener, '')).toEqual(roleOptions([role('vip', 'VIP')], ''));
  });

  it('stops waiting for the role list at the deadline, and on its failure', async () => {
    const never = appWith({ listAllRoles: () => new Promise<Role[]>(() => {}) });
    expect(
      await answer(
        createRoleOptions(() => ({ app: never }), late),
        '',
      ),
    ).toEqual([]);
    const failing = appWith({ listAllRoles: () => Promise.reject(new Error('503')) });
    expect(
      await answer(
        createRoleOptions(() => ({ app: failing }), early),
        '',
      ),
    ).toEqual([]);
    expect(
      await answer(
        createRoleOptions(() => undefined, early),
        '',
      ),
    ).toEqual([]);
  });
});
