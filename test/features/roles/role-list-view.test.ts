import type { Button, KnownBlock, TableBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { assertWithinLimits } from '../../../offline/slack-standin/block-kit-limits.ts';
import { cellText } from '../../../offline/stack/terminal-render.ts';
import type { RolePage } from '../../../src/cometchat/model.ts';
import type { Role } from '../../../src/cometchat/schemas.ts';
import { compact, roleListMessage } from '../../../src/features/roles/role-list-view.ts';
import { sharedCopy } from '../../../src/slack/blocks.ts';

// The role list as Block Kit: pure; a table of the page's roles, a button per role below it.

const roles: Role[] = [
  {
    role: 'default',
    name: 'Default',
    description: 'Everyone.',
    createdAt: 1_689_000_000,
    settings: { listUsers: 'all' },
  },
  {
    role: 'cometchat_uid_1-x',
    name: '<!channel> *VIP* <@U0123ABCD>',
    description: '<https://evil.example|click> & `code` _it_',
    updatedAt: 1_698_765_432,
    metadata: { note: '<!everyone>', nested: { a: 1 } },
  },
  // An id the editor cannot take: listed, without a button.
  { role: 'Not An Id!', name: '', description: '' },
];

const page = (list: Role[], current = 1, total = list.length): RolePage => ({
  roles: list,
  pagination: {
    total,
    count: list.length,
    per_page: 10,
    current_page: current,
    total_pages: Math.ceil(total / 10),
  },
});

const tables = (blocks: readonly KnownBlock[] = []) =>
  blocks.filter((b): b is TableBlock => b.type === 'table');
const rowsOf = (blocks?: readonly KnownBlock[]) =>
  (tables(blocks)[0]?.rows ?? []).map((row) => row.map(cellText));
const buttonsOf = (blocks: readonly KnownBlock[] = []) =>
  blocks.flatMap((b) =>
    b.type === 'actions' ? b.elements.filter((e): e is Button => e.type === 'button') : [],
  );

/** What Slack parses as mrkdwn: the fallback `text` and every mrkdwn text object. */
function markupOf(message: { text?: string; blocks?: KnownBlock[] }): string {
  const found: string[] = [message.text ?? ''];
  JSON.stringify(message.blocks, (_key, value: unknown) => {
    const v = value as { type?: unknown; text?: unknown } | null;
    if (v?.type === 'mrkdwn' && typeof v.text === 'string') found.push(v.text);
    return value;
  });
  return found.join('\n');
}

describe('roleListMessage', () => {
  it('is one table: a row per role, the ids and names exactly as CometChat has them', () => {
    const message = roleListMessage(page(roles));
    expect(tables(message.blocks)).toHaveLength(1);
    expect(rowsOf(message.blocks)).toEqual([
      [
        '#',
        'Name',
        'Role id',
        'Users',
        'Description',
        'Created',
        'Updated',
        'Settings',
        'Metadata',
      ],
      [
        '1',
        'Default',
        'default',
        'unknown',
        'Everyone.',
        '2023-07-10 14:40',
        '—',
        'listUsers: all',
        '—',
      ],
      [
        '2',
        '<!channel> *VIP* <@U0123ABCD>',
        'cometchat_uid_1-x',
        'unknown',
        '<https://evil.example|click> & `code` _it_',
        '—',
        '2023-10-31 15:17',
        '—',
        'note: <!everyone> · nested: {"a":1}',
      ],
      ['3', 'Not An Id!', 'Not An Id!', 'unknown', '—', '—', '—', '—', '—'],
    ]);
    // Raw text: shown as typed, copied exactly; nothing escaped, nothing invisible added.
    const json = JSON.stringify(message.blocks);
    expect(json).not.toMatch(/\u200b|&lt;|&amp;/);
    expect(markupOf(message)).not.toMatch(/<[!@#]|<https?:/);
    assertWithinLimits('message', message);
  });

  it('shows how many users hold each role, and unknown where CometChat did not say', () => {
    const message = roleListMessage(page(roles), { holders: new Map([['default', 6]]) });
    expect(rowsOf(message.blocks).map((row) => row[3])).toEqual([
      'Users',
      '6',
      'unknown',
      'unknown',
    ]);
  });

  it("shows a date as Slack's date element, in each reader's zone, with an ISO fallback", () => {
    const [, first] = tables(roleListMessage(page(roles)).blocks)[0]?.rows ?? [];
    expect(first?.[5]).toEqual({
      type: 'rich_text',
      elements: [
        {
          type: 'rich_text_section',
          elements: [
            {
              type: 'date',
              timestamp: 1_689_000_000,
              format: '{date_short_pretty} {time}',
              fallback: '2023-07-10T14:40:00Z',
            },
          ],
        },
      ],
    });
  });

  it('gives each role the editor can take an Edit button naming it, with the value of before', () => {
    const message = roleListMessage(page(roles), { roleValue: (r) => `signed.${r}` });
    const edits = buttonsOf(message.blocks).filter((b) => b.action_id === 'edit_permissions');
    expect(edits.map((b) => [b.text.text, b.value])).toEqual([
      ['Edit default', 'signed.default'],
      ['Edit cometchat_uid_1-x', 'signed.cometchat_uid_1-x'],
    ]);
    // Each in a block of its own: Slack refuses an action_id twice in one block.
    const rows = (message.blocks ?? []).filter(
      (b) => b.type === 'actions' && b.elements.some((e) => e.action_id === 'edit_permissions'),
    );
    expect(rows.map((b) => (b.type === 'actions' ? b.elements.length : 0))).toEqual([1, 1]);
  });

  it('names a long role id within the 75 characters of a button', () => {
    const long = 'r'.repeat(100);
    const message = roleListMessage(page([{ role: long, name: 'Long', description: '' }]));
    const [edit] = buttonsOf(message.blocks).filter((b) => b.action_id === 'edit_permissions');
    expect(edit?.value).toBe(long);
    expect(edit?.text.text).toMatch(/^Edit r+…$/);
    expect([...(edit?.text.text ?? '')]).toHaveLength(75);
    expect(rowsOf(message.blocks)[1]?.[2]).toBe(long);
    assertWithinLimits('message', message);
  });

  it('keeps the sentence, and no table, when the page has no roles', () => {
    const none = roleListMessage(page([], 1, 0));
    expect(tables(none.blocks)).toEqual([]);
    expect(JSON.stringify(none.blocks)).toContain('This app has no roles.');
    const beyond = roleListMessage(page([], 4, 12));
    expect(tables(beyond.blocks)).toEqual([]);
    expect(JSON.stringify(beyond.blocks)).toContain('There is no page 4; the last page is 2.');
  });

  it('keeps the page and share buttons; the shared copy keeps the table and drops every button', () => {
    const message = roleListMessage(page(roles, 2, 25));
    expect(
      buttonsOf(message.blocks)
        .filter((b) => b.action_id !== 'edit_permissions')
        .map((b) => b.action_id),
    ).toEqual(['roles_page_prev', 'roles_page_next', 'share_roles']);
    const shared = sharedCopy(message);
    expect(buttonsOf(shared.blocks)).toEqual([]);
    expect(rowsOf(shared.blocks)).toEqual(rowsOf(message.blocks));
  });

  it('stays within Slack limits with ten roles of the longest text', () => {
    const long = (i: number): Role => ({
      role: `role-${i}-${'x'.repeat(90)}`,
      name: '<!here> '.repeat(40),
      description: '*'.repeat(2000),
      settings: Object.fromEntries(Array.from({ length: 20 }, (_, k) => [`k${k}`, 'v'.repeat(80)])),
      metadata: { deep: { deeper: 'x'.repeat(500) } },
      createdAt: 1_700_000_000,
      updatedAt: 1_700_000_000,
    });
    const message = roleListMessage(
      page(
        Array.from({ length: 10 }, (_, i) => long(i)),
        1,
        25,
      ),
    );
    assertWithinLimits('message', message);
    expect(tables(message.blocks)).toHaveLength(1);
  });
});

describe('compact', () => {
  it('writes a record as code spans, long values cut and extra entries counted', () => {
    const record = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, i]));
    expect(compact('Settings', record)).toBe(
      'Settings: `k0: 0` · `k1: 1` · `k2: 2` · `k3: 3` · `k4: 4` · `k5: 5` +2 more',
    );
    expect(compact('Metadata', {})).toBeUndefined();
    expect(compact('Metadata', undefined)).toBeUndefined();
  });
});
