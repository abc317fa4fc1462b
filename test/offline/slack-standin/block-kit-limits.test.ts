import type {
  ActionsBlock,
  Button,
  HomeView,
  KnownBlock,
  ModalView,
  PlainTextOption,
  RichTextBlock,
  SectionBlock,
  StaticSelect,
  TableBlock,
} from '@slack/types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertWithinLimits,
  BLOCK_KIT_LIMITS,
  blockKitProblems,
  checkMessage,
  checkView,
  countCharacters,
  homeViewProblems,
  SlackLimitsError,
  viewProblems,
} from '../../../offline/slack-standin/block-kit-limits.ts';

const x = (n: number) => 'x'.repeat(n);
const plain = (text: string) => ({ type: 'plain_text', text }) as const;
const mrkdwn = (text: string) => ({ type: 'mrkdwn', text }) as const;
const section = (text: string, more: Partial<SectionBlock> = {}): SectionBlock => ({
  type: 'section',
  text: mrkdwn(text),
  ...more,
});
const button = (actionId: string, text = 'Open', more: Partial<Button> = {}): Button => ({
  type: 'button',
  action_id: actionId,
  text: plain(text),
  ...more,
});
const actions = (elements: ActionsBlock['elements'], blockId?: string): ActionsBlock => ({
  type: 'actions',
  elements,
  ...(blockId === undefined ? {} : { block_id: blockId }),
});
const option = (value: string, text = value): PlainTextOption => ({ text: plain(text), value });
const options = (n: number) => Array.from({ length: n }, (_, i) => option(`v${i}`));
const select = (more: Partial<StaticSelect>): StaticSelect => ({
  type: 'static_select',
  action_id: 'pick',
  ...more,
});
const dividers = (n: number): KnownBlock[] =>
  Array.from({ length: n }, () => ({ type: 'divider' }));
const modal = (more: Partial<ModalView> = {}): ModalView => ({
  type: 'modal',
  title: plain('Permissions'),
  blocks: [section('hello')],
  ...more,
});

describe('a good message and a good modal', () => {
  it('a realistic message passes', () => {
    const blocks: KnownBlock[] = [
      { type: 'header', text: plain('Roles') },
      section('*moderator* — can kick', {
        block_id: 'role_moderator',
        fields: [mrkdwn('*Members*\n12'), mrkdwn('*Permissions*\n8')],
        accessory: button('role_open', 'Permissions', { value: 'moderator' }),
      }),
      { type: 'context', elements: [mrkdwn('Page 1 of 3'), plain('Updated now')] },
      { type: 'divider' },
      actions(
        [
          button('roles_prev', 'Previous', { value: '0' }),
          button('roles_next', 'Next', { value: '2', style: 'primary' }),
          select({ options: options(20), placeholder: plain('Jump to role') }),
        ],
        'roles_nav',
      ),
      {
        type: 'rich_text',
        elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'hi' }] }],
      },
    ];
    expect(checkMessage({ text: 'Roles', blocks })).toEqual([]);
    expect(() => assertWithinLimits('message', { text: 'Roles', blocks })).not.toThrow();
  });

  it('a realistic modal passes', () => {
    const view = modal({
      callback_id: 'perms_edit',
      private_metadata: JSON.stringify({ role: 'moderator', hash: 'abc' }),
      submit: plain('Review changes'),
      close: plain('Cancel'),
      blocks: [
        section('Editing *moderator*'),
        {
          type: 'input',
          block_id: 'perms',
          label: plain('Permissions'),
          element: {
            type: 'checkboxes',
            action_id: 'perms_checked',
            options: options(10),
            initial_options: options(2),
          },
        },
        {
          type: 'input',
          block_id: 'group',
          optional: true,
          label: plain('Preset'),
          element: {
            type: 'static_select',
            action_id: 'preset',
            option_groups: [
              { label: plain('Common'), options: options(3) },
              { label: plain('Rare'), options: options(2) },
            ],
          },
        },
      ],
    });
    expect(checkView(view)).toEqual([]);
    expect(() => assertWithinLimits('view', view)).not.toThrow();
  });

  it('a limit itself is allowed; one more is not', () => {
    expect(checkMessage({ blocks: [section(x(3000))] })).toEqual([]);
    expect(checkMessage({ blocks: [section(x(3001))] })).toEqual([
      'blocks[0].text: 3001 > 3000 characters',
    ]);
  });
});

describe('counting characters as Slack does: Unicode code points', () => {
  const header = (text: string): KnownBlock => ({ type: 'header', text: plain(text) });
  /** é written as e + U+0301 COMBINING ACUTE ACCENT: one glyph, two code points. */
  const composedE = 'e\u0301';
  const escapedOption = (n: number) =>
    actions([select({ options: [option('v', '&amp;'.repeat(n))] })]);

  it('an emoji outside the BMP is one character, though two UTF-16 units', () => {
    expect('😀'.length).toBe(2);
    expect(countCharacters('😀')).toBe(1);
    expect(checkMessage({ blocks: [header('😀'.repeat(150))] })).toEqual([]);
    expect(checkMessage({ blocks: [header('😀'.repeat(151))] })).toEqual([
      'blocks[0].text: 151 > 150 characters',
    ]);
  });

  it('a combining sequence is as many characters as it has code points', () => {
    expect(countCharacters(composedE)).toBe(2);
    expect(countCharacters('👍🏽')).toBe(2);
    expect(checkMessage({ blocks: [header(composedE.repeat(75))] })).toEqual([]);
    expect(checkMessage({ blocks: [header(composedE.repeat(76))] })).toEqual([
      'blocks[0].text: 152 > 150 characters',
    ]);
  });

  it('counts code points as for...of does, lone surrogates included', () => {
    expect(countCharacters('\uD83D')).toBe(1);
    expect(countCharacters('a\uDE00\uD83Db')).toBe(4);
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(countCharacters(text)).toBe([...text].length);
      }),
    );
  });

  it('text is measured as sent: an escaped & is five characters', () => {
    expect(countCharacters('&amp;')).toBe(5);
    expect(checkMessage({ blocks: [escapedOption(15)] })).toEqual([]);
    expect(checkMessage({ blocks: [escapedOption(16)] })).toEqual([
      'blocks[0].elements[0].options[0].text: 80 > 75 characters',
    ]);
  });

  it('the stand-in refuses at the very count the test checks report', () => {
    const pairs: [KnownBlock, KnownBlock][] = [
      [header('😀'.repeat(150)), header('😀'.repeat(151))],
      [header(composedE.repeat(75)), header(composedE.repeat(76))],
      [escapedOption(15), escapedOption(16)],
    ];
    for (const [fits, overflows] of pairs) {
      expect(blockKitProblems([fits], '/blocks', 50)).toEqual([]);
      expect(blockKitProblems([overflows], '/blocks', 50)).toHaveLength(1);
    }
    expect(blockKitProblems([header('😀'.repeat(151))], '/blocks', 50)).toEqual([
      '[ERROR] must be less than 151 characters [json-pointer:/blocks/0/text/text]',
    ]);
    expect(viewProblems(modal({ title: plain('😀'.repeat(24)) }))).toEqual([]);
    expect(viewProblems(modal({ title: plain('😀'.repeat(25)) }))).toEqual([
      '[ERROR] must be less than 25 characters [json-pointer:/view/title/text]',
    ]);
  });
});

describe('block counts', () => {
  it('50 blocks per message', () => {
    expect(checkMessage({ blocks: dividers(50) })).toEqual([]);
    expect(checkMessage({ blocks: dividers(51) })).toEqual(['blocks: 51 > 50 blocks']);
  });

  it('100 blocks per modal or Home tab', () => {
    expect(checkView(modal({ blocks: dividers(100) }))).toEqual([]);
    expect(checkView(modal({ blocks: dividers(101) }))).toEqual(['blocks: 101 > 100 blocks']);
    expect(checkView({ type: 'home', blocks: dividers(101) })).toEqual([
      'blocks: 101 > 100 blocks',
    ]);
  });
});

describe('text objects', () => {
  it('any text object: 3000, wherever it sits', () => {
    const blocks: KnownBlock[] = [
      { type: 'context', elements: [mrkdwn('ok'), mrkdwn(x(3001))] },
      actions([button('a', 'Go', { confirm: { text: plain(x(3001)) } })]),
    ];
    expect(checkMessage({ blocks })).toEqual([
      'blocks[0].elements[1]: 3001 > 3000 characters',
      'blocks[1].elements[0].confirm.text: 3001 > 3000 characters',
    ]);
  });

  it('input label and hint: 2000', () => {
    const input = (label: string, hint: string): KnownBlock => ({
      type: 'input',
      label: plain(label),
      hint: plain(hint),
      element: { type: 'plain_text_input' },
    });
    expect(checkView(modal({ submit: plain('Save'), blocks: [input(x(2000), x(2000))] }))).toEqual(
      [],
    );
    expect(checkView(modal({ submit: plain('Save'), blocks: [input(x(2001), x(3001))] }))).toEqual([
      'blocks[0].label: 2001 > 2000 characters',
      'blocks[0].hint: 3001 > 2000 characters',
    ]);
  });

  it('section fields: 10 items of 2000 each', () => {
    const fields = Array.from({ length: 11 }, () => mrkdwn('f'));
    fields[3] = mrkdwn(x(2001));
    expect(checkMessage({ blocks: [section('s', { fields })] })).toEqual([
      'blocks[0].fields: 11 > 10 fields',
      'blocks[0].fields[3]: 2001 > 2000 characters',
    ]);
  });

  it('header: 150', () => {
    expect(checkMessage({ blocks: [{ type: 'header', text: plain(x(151)) }] })).toEqual([
      'blocks[0].text: 151 > 150 characters',
    ]);
  });
});

describe('element counts', () => {
  it('context: 10 elements', () => {
    const elements = Array.from({ length: 11 }, () => mrkdwn('c'));
    expect(checkMessage({ blocks: [{ type: 'context', elements }] })).toEqual([
      'blocks[0].elements: 11 > 10 elements',
    ]);
  });

  it('actions: 25 elements', () => {
    const elements = Array.from({ length: 26 }, (_, i) => button(`b${i}`));
    expect(checkMessage({ blocks: [actions(elements)] })).toEqual([
      'blocks[0].elements: 26 > 25 elements',
    ]);
  });

  it('checkboxes and radio buttons: 10 options', () => {
    const view = modal({
      submit: plain('Save'),
      blocks: [
        {
          type: 'input',
          label: plain('a'),
          element: { type: 'checkboxes', action_id: 'c', options: options(11) },
        },
        {
          type: 'input',
          label: plain('b'),
          element: { type: 'radio_buttons', action_id: 'r', options: options(11) },
        },
      ],
    });
    expect(checkView(view)).toEqual([
      'blocks[0].element.options: 11 > 10 options',
      'blocks[1].element.options: 11 > 10 options',
    ]);
  });

  it('static selects: 100 options or 100 option groups', () => {
    const groups = Array.from({ length: 101 }, (_, i) => ({
      label: plain(`g${i}`),
      options: options(1),
    }));
    groups[0] = { label: plain(x(76)), options: options(101) };
    const blocks: KnownBlock[] = [
      actions([select({ options: options(100) })]),
      actions([select({ options: options(101) })]),
      actions([{ type: 'multi_static_select', action_id: 'm', option_groups: groups }]),
    ];
    expect(checkMessage({ blocks })).toEqual([
      'blocks[1].elements[0].options: 101 > 100 options',
      'blocks[2].elements[0].option_groups: 101 > 100 option groups',
      'blocks[2].elements[0].option_groups[0].label: 76 > 75 characters',
      'blocks[2].elements[0].option_groups[0].options: 101 > 100 options',
    ]);
  });

  it('overflow: 5 options', () => {
    const blocks: KnownBlock[] = [
      section('s', { accessory: { type: 'overflow', action_id: 'o', options: options(6) } }),
    ];
    expect(checkMessage({ blocks })).toEqual(['blocks[0].accessory.options: 6 > 5 options']);
  });
});

describe('options and buttons', () => {
  it('option text, value and description: 75 each', () => {
    const long: PlainTextOption = { text: plain(x(76)), value: x(76), description: plain(x(76)) };
    const blocks: KnownBlock[] = [
      actions([select({ options: [option('ok'), long], initial_option: long })]),
    ];
    expect(checkMessage({ blocks })).toEqual([
      'blocks[0].elements[0].options[1].text: 76 > 75 characters',
      'blocks[0].elements[0].options[1].value: 76 > 75 characters',
      'blocks[0].elements[0].options[1].description: 76 > 75 characters',
      'blocks[0].elements[0].initial_option.text: 76 > 75 characters',
      'blocks[0].elements[0].initial_option.value: 76 > 75 characters',
      'blocks[0].elements[0].initial_option.description: 76 > 75 characters',
    ]);
  });

  it('button text 75 and value 2000, as accessory or in actions', () => {
    const blocks: KnownBlock[] = [
      { type: 'divider' },
      { type: 'divider' },
      section('s', { accessory: button('acc', 'ok', { value: x(2001) }) }),
      actions([button('b', x(80)), button('c', 'ok', { value: x(2000) })]),
    ];
    expect(checkMessage({ blocks })).toEqual([
      'blocks[2].accessory.value: 2001 > 2000 characters',
      'blocks[3].elements[0].text: 80 > 75 characters',
    ]);
  });
});

describe('ids', () => {
  it('action_id, block_id, callback_id: 255', () => {
    expect(checkView(modal({ callback_id: x(256) }))).toEqual([
      'callback_id: 256 > 255 characters',
    ]);
    expect(checkMessage({ blocks: [actions([button(x(256))], x(256))] })).toEqual([
      'blocks[0].block_id: 256 > 255 characters',
      'blocks[0].elements[0].action_id: 256 > 255 characters',
    ]);
  });

  it('a block_id used twice in one message or view', () => {
    const blocks = [section('a', { block_id: 'same' }), section('b', { block_id: 'other' })];
    blocks.push(section('c', { block_id: 'same' }));
    expect(checkMessage({ blocks })).toEqual([
      'blocks[2].block_id: duplicate "same" (first at blocks[0].block_id)',
    ]);
    expect(checkView(modal({ blocks }))).toEqual([
      'blocks[2].block_id: duplicate "same" (first at blocks[0].block_id)',
    ]);
  });

  it('an action_id used twice in one block, but not across blocks', () => {
    expect(
      checkMessage({ blocks: [actions([button('go'), button('stop'), button('go')])] }),
    ).toEqual([
      'blocks[0].elements[2].action_id: duplicate "go" in this block (first at blocks[0].elements[0].action_id)',
    ]);
    expect(checkMessage({ blocks: [actions([button('go')]), actions([button('go')])] })).toEqual(
      [],
    );
  });
});

describe('modal chrome', () => {
  it('title, submit and close: 24 each', () => {
    const view = modal({ title: plain(x(25)), submit: plain(x(25)), close: plain(x(25)) });
    expect(checkView(view)).toEqual([
      'title: 25 > 24 characters',
      'submit: 25 > 24 characters',
      'close: 25 > 24 characters',
    ]);
  });

  it('private_metadata: 3000', () => {
    expect(checkView(modal({ private_metadata: x(3000) }))).toEqual([]);
    expect(checkView(modal({ private_metadata: x(3001) }))).toEqual([
      'private_metadata: 3001 > 3000 characters',
    ]);
  });

  it('a modal with input blocks needs a submit button', () => {
    const blocks: KnownBlock[] = [
      { type: 'input', label: plain('Uid'), element: { type: 'plain_text_input' } },
    ];
    expect(checkView(modal({ blocks }))).toEqual([
      'submit: a modal with input blocks needs a submit button',
    ]);
  });
});

describe('message totals', () => {
  it('message text: 40,000', () => {
    expect(checkMessage({ text: x(40_000) })).toEqual([]);
    expect(checkMessage({ text: x(40_001) })).toEqual(['text: 40001 > 40000 characters']);
  });

  it('all blocks together: about 13,000 characters of text', () => {
    const blocks = Array.from({ length: 5 }, () => section(x(2600)));
    expect(checkMessage({ blocks })).toEqual([]);
    blocks.push(section('1'));
    expect(checkMessage({ blocks })).toEqual([
      `blocks: 13001 > ${BLOCK_KIT_LIMITS.messageBlocksText} characters of text in all blocks together (msg_blocks_too_long)`,
    ]);
  });

  it('rich text is not walked, but counts towards the total', () => {
    const rich: KnownBlock = {
      type: 'rich_text',
      block_id: 'r',
      elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: x(13_001) }] }],
    };
    expect(checkMessage({ blocks: [rich] })).toEqual([
      'blocks: 13001 > 13000 characters of text in all blocks together (msg_blocks_too_long)',
    ]);
  });
});

describe('tables', () => {
  const raw = (text: string) => ({ type: 'raw_text', text }) as const;
  const rich = (text: string): RichTextBlock => ({
    type: 'rich_text',
    elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }],
  });
  const table = (rows: TableBlock['rows'], more: Partial<TableBlock> = {}): TableBlock => ({
    type: 'table',
    rows,
    ...more,
  });
  const grid = (rows: number, cells: number) =>
    Array.from({ length: rows }, (_, r) =>
      Array.from({ length: cells }, (_, c) => raw(`${r}.${c}`)),
    );

  it('a table of raw_text and rich_text cells, with column settings, passes in a message', () => {
    const blocks: KnownBlock[] = [
      section('Roles'),
      table(
        [
          [raw('#'), raw('Role')],
          [raw('1'), rich('<!channel>')],
        ],
        {
          column_settings: [{ align: 'right' }, { is_wrapped: true }],
        },
      ),
      actions([button('edit', 'Edit admin', { value: 'admin' })]),
    ];
    expect(checkMessage({ blocks })).toEqual([]);
    expect(blockKitProblems(blocks, '/blocks', 50)).toEqual([]);
  });

  it('100 rows of 20 cells, and 20 column settings', () => {
    const settings = (n: number) => Array.from({ length: n }, () => ({ align: 'left' }) as const);
    expect(
      checkMessage({ blocks: [table(grid(100, 20), { column_settings: settings(20) })] }),
    ).toEqual([]);
    expect(
      checkMessage({ blocks: [table(grid(101, 21), { column_settings: settings(21) })] }),
    ).toEqual([
      'blocks[0].rows: 101 > 100 rows',
      'blocks[0].column_settings: 21 > 20 column settings',
      ...Array.from({ length: 101 }, (_, r) => `blocks[0].rows[${r}]: 21 > 20 cells`),
    ]);
    expect(blockKitProblems([table(grid(101, 2))], '/blocks', 50)).toEqual([
      '[ERROR] must be less than 101 items [json-pointer:/blocks/0/rows]',
    ]);
  });

  it('cells are raw_text, with some text, or rich_text; rows are arrays', () => {
    const rows = [
      [raw('ok'), raw(''), { type: 'mrkdwn', text: '*no*' }, 'text'],
      'not a row',
    ] as unknown as TableBlock['rows'];
    expect(blockKitProblems([table(rows), { type: 'table' }], '/blocks', 50)).toEqual([
      '[ERROR] only_one_table_allowed [json-pointer:/blocks/1]',
      '[ERROR] must be more than 0 characters [json-pointer:/blocks/0/rows/0/1/text]',
      '[ERROR] must be a raw_text or rich_text table cell [json-pointer:/blocks/0/rows/0/2]',
      '[ERROR] must be a raw_text or rich_text table cell [json-pointer:/blocks/0/rows/0/3]',
      '[ERROR] expected an array [json-pointer:/blocks/0/rows/1]',
      '[ERROR] missing required field: rows [json-pointer:/blocks/1]',
    ]);
  });

  it('one table per message: a second is refused with only_one_table_allowed', () => {
    const one = table(grid(2, 2));
    const blocks: KnownBlock[] = [one, section('between'), one, one];
    expect(checkMessage({ blocks })).toEqual([
      'blocks[2]: a second table (the first at blocks[0]): one per message (only_one_table_allowed)',
      'blocks[3]: a second table (the first at blocks[0]): one per message (only_one_table_allowed)',
    ]);
    expect(blockKitProblems(blocks, '/blocks', 50)).toEqual([
      '[ERROR] only_one_table_allowed [json-pointer:/blocks/2]',
      '[ERROR] only_one_table_allowed [json-pointer:/blocks/3]',
    ]);
    expect(BLOCK_KIT_LIMITS.tablesPerMessage).toBe(1);
  });

  it('no table in a modal or a Home tab: they are not messages', () => {
    const blocks: KnownBlock[] = [section('Calls'), table(grid(2, 2))];
    expect(viewProblems(modal({ blocks }))).toEqual([
      '[ERROR] unsupported block type table: tables are for messages only [json-pointer:/view/blocks/1]',
    ]);
    const home: HomeView = { type: 'home', blocks };
    expect(homeViewProblems(home)).toEqual([
      '[ERROR] unsupported block type table: tables are for messages only [json-pointer:/view/blocks/1]',
    ]);
    expect(checkView(home)).toEqual([
      'blocks[1]: a table in a modal or Home tab (tables are for messages only)',
    ]);
  });

  it("cells' text counts towards the message's total", () => {
    const rows = [
      [raw(x(6000)), rich(x(6000))],
      [raw(x(1000)), raw('1')],
    ];
    expect(checkMessage({ blocks: [table(rows)] })).toEqual([
      'blocks: 13001 > 13000 characters of text in all blocks together (msg_blocks_too_long)',
    ]);
    expect(checkMessage({ blocks: [table(rows.slice(0, 1)), section(x(1000))] })).toEqual([]);
  });
});

describe('blocks it has no specific rules for', () => {
  it('walks nested elements and text objects generically', () => {
    const card: KnownBlock = {
      type: 'card',
      title: mrkdwn(x(3001)),
      actions: [button('a', x(76)), button('a')],
    };
    expect(checkMessage({ blocks: [card] })).toEqual([
      'blocks[0].title: 3001 > 3000 characters',
      'blocks[0].actions[0].text: 76 > 75 characters',
      'blocks[0].actions[1].action_id: duplicate "a" in this block (first at blocks[0].actions[0].action_id)',
    ]);
  });
});

describe('assertWithinLimits', () => {
  it('throws a SlackLimitsError listing every violation', () => {
    const message = { text: x(40_001), blocks: dividers(51) };
    let error: unknown;
    try {
      assertWithinLimits('message', message);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SlackLimitsError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      kind: 'message',
      violations: ['text: 40001 > 40000 characters', 'blocks: 51 > 50 blocks'],
    });
    expect(String(error)).toContain('- blocks: 51 > 50 blocks');
  });

  it('reads blocks and views sent form-encoded as JSON strings', () => {
    expect(() =>
      assertWithinLimits('message', { channel: 'C1', blocks: JSON.stringify(dividers(51)) }),
    ).toThrow('blocks: 51 > 50 blocks');
    expect(() =>
      assertWithinLimits('view', JSON.stringify(modal({ title: plain(x(25)) }))),
    ).toThrow('title: 25 > 24 characters');
    expect(() => assertWithinLimits('message', { blocks: '[{' })).toThrow('blocks: not valid JSON');
  });

  it('rejects what is not a payload at all', () => {
    expect(() => assertWithinLimits('view', undefined)).toThrow('view: not an object');
    expect(() => assertWithinLimits('message', { blocks: {} })).toThrow('blocks: not an array');
    expect(() => assertWithinLimits('view', { type: 'modal', blocks: [] })).toThrow(
      'title: a modal needs a plain_text title',
    );
  });
});

describe("the stand-in's refusals, in Slack's words", () => {
  it('accepts blocks within the limits', () => {
    expect(blockKitProblems([section(x(3000))], '/blocks', 50)).toEqual([]);
    expect(blockKitProblems(undefined, '/blocks', 50)).toEqual([]);
  });

  it('reports each overflow with a json pointer, as Slack does', () => {
    const blocks: KnownBlock[] = [
      section(x(3001)),
      { type: 'header', text: plain(x(151)) },
      actions(Array.from({ length: 26 }, (_, i) => button(`b${i}`, 'Go', { value: 'v' }))),
      actions([button('a', 'Go', { value: x(2001) })], 'b'),
      { type: 'context', block_id: 'b', elements: [] },
    ];
    expect(blockKitProblems(blocks, '/blocks', 50)).toEqual([
      '[ERROR] duplicate block_id b [json-pointer:/blocks/4/block_id]',
      '[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]',
      '[ERROR] must be less than 151 characters [json-pointer:/blocks/1/text/text]',
      '[ERROR] must be less than 26 items [json-pointer:/blocks/2/elements]',
      '[ERROR] must be less than 2001 characters [json-pointer:/blocks/3/elements/0/value]',
    ]);
  });

  it('bounds options of selects and checkboxes', () => {
    const blocks: KnownBlock[] = [
      actions([select({ options: options(101) })]),
      actions([{ type: 'checkboxes', action_id: 'c', options: options(11) }]),
    ];
    expect(blockKitProblems(blocks, '/blocks', 50)).toEqual([
      '[ERROR] must be less than 101 items [json-pointer:/blocks/0/elements/0/options]',
      '[ERROR] must be less than 11 items [json-pointer:/blocks/1/elements/0/options]',
    ]);
  });

  it('refuses by the same rules as the test checks: overflow menus, repeated action_ids, untyped blocks', () => {
    const blocks = [
      section('s', { accessory: { type: 'overflow', action_id: 'o', options: options(6) } }),
      actions([button('go'), button('go')]),
      { text: mrkdwn('no type') },
      'not a block',
    ];
    expect(blockKitProblems(blocks, '/blocks', 50)).toEqual([
      '[ERROR] must be less than 6 items [json-pointer:/blocks/0/accessory/options]',
      '[ERROR] duplicate action_id go [json-pointer:/blocks/1/elements/1/action_id]',
      '[ERROR] missing required field: type [json-pointer:/blocks/2]',
      '[ERROR] expected an object [json-pointer:/blocks/3]',
    ]);
    expect(blockKitProblems({}, '/blocks', 50)).toEqual([
      '[ERROR] expected an array [json-pointer:/blocks]',
    ]);
  });

  it('does not refuse what Slack posts anyway or refuses by another error', () => {
    const blocks = [...Array.from({ length: 5 }, () => section(x(2600))), section('1')];
    expect(blockKitProblems(blocks, '/blocks', 50)).toEqual([]);
    expect(checkMessage({ blocks })).toEqual([
      'blocks: 13001 > 13000 characters of text in all blocks together (msg_blocks_too_long)',
    ]);
  });
});

describe("the stand-in's refusals of views", () => {
  it('accepts a plain modal', () => {
    expect(viewProblems(modal())).toEqual([]);
  });

  it('wants a submit button when the modal has inputs, and bounded metadata', () => {
    const input: KnownBlock = {
      type: 'input',
      label: plain('Role'),
      element: { type: 'plain_text_input', action_id: 'r' },
    };
    expect(viewProblems(modal({ blocks: [input], private_metadata: x(3001) }))).toEqual([
      '[ERROR] must be less than 3001 characters [json-pointer:/view/private_metadata]',
      '[ERROR] must provide a submit property when using input blocks [json-pointer:/view]',
    ]);
  });

  it('takes only modals, with their required fields', () => {
    expect(viewProblems(undefined)).toEqual([
      '[ERROR] missing required field: view [json-pointer:/view]',
    ]);
    expect(viewProblems({ title: plain('t') })).toEqual([
      '[ERROR] missing required field: type [json-pointer:/view]',
      '[ERROR] missing required field: blocks [json-pointer:/view]',
    ]);
    expect(viewProblems({ type: 'modal', blocks: [] })).toEqual([
      '[ERROR] missing required field: title [json-pointer:/view]',
    ]);
    // views.open, views.update and views.push take modals; a Home tab goes through views.publish.
    const home: HomeView = { type: 'home', blocks: [] };
    expect(checkView(home)).toEqual([]);
    expect(viewProblems(home)).toEqual([
      '[ERROR] unsupported view type home [json-pointer:/view/type]',
    ]);
  });
});
