import { describe, expect, it } from 'vitest';
import { cellText, renderBlocks } from '../../../offline/stack/terminal-render.ts';

// The offline try's drawing of a table: columns aligned, rich cells read as Slack shows them.

const raw = (text: string) => ({ type: 'raw_text', text });
const rich = (...elements: Record<string, unknown>[]) => ({
  type: 'rich_text',
  elements: [{ type: 'rich_text_section', elements }],
});

describe('a table in the terminal', () => {
  it('reads rich cells as Slack shows them: dates by their fallback, people, emoji', () => {
    expect(cellText(raw('<!channel>'))).toBe('<!channel>');
    expect(
      cellText(
        rich(
          { type: 'emoji', name: 'white_check_mark' },
          { type: 'text', text: ' applied by ' },
          { type: 'user', user_id: 'U0ASKER' },
        ),
      ),
    ).toBe('✔ applied by @U0ASKER');
    expect(
      cellText(
        rich({ type: 'date', timestamp: 1, format: '{date}', fallback: '2023-07-10T14:42:00Z' }),
      ),
    ).toBe('2023-07-10 14:42');
    expect(cellText({ type: 'mrkdwn', text: 'not a cell' })).toBe('');
  });

  it('draws aligned columns under an underlined header, numbers to the right', () => {
    const drawn = renderBlocks([
      {
        type: 'table',
        rows: [
          [raw('#'), raw('Role id'), raw('Name')],
          [raw('1'), raw('default'), raw('Default')],
          [raw('10'), raw('regional-lead-emea'), raw('日本語')],
        ],
        column_settings: [{ align: 'right' }],
      },
    ]);
    expect(drawn.split('\n')).toEqual([
      ' # │ Role id            │ Name',
      '───┼────────────────────┼────────',
      ' 1 │ default            │ Default',
      '10 │ regional-lead-emea │ 日本語',
    ]);
  });

  it('wraps a long cell of a wrapped column within its width, the rows kept apart', () => {
    const long = 'word '.repeat(60).trim();
    const drawn = renderBlocks([
      {
        type: 'table',
        rows: [
          [raw('Role id'), raw('Description')],
          [raw('admin'), raw(long)],
          [raw('guest'), raw('Short.')],
        ],
        column_settings: [{}, { is_wrapped: true }],
      },
    ]).split('\n');
    expect(drawn.length).toBeGreaterThan(4);
    const bar = drawn[0]?.indexOf('│');
    for (const line of drawn) {
      if (!line.startsWith('──')) expect(line.indexOf('│')).toBe(bar);
      expect([...line].length).toBeLessThanOrEqual(140);
    }
    expect(drawn.at(-1)).toBe('guest   │ Short.');
    expect(drawn.at(-2)).toMatch(/^─+┼─+$/);
  });
});

describe('a form in the terminal', () => {
  it("draws an input's hint under its field, as Slack shows it under the box", () => {
    const drawn = renderBlocks([
      {
        type: 'input',
        block_id: 'uid',
        label: { type: 'plain_text', text: 'User id (uid)' },
        hint: { type: 'plain_text', text: 'Exactly as CometChat has it.' },
        element: { type: 'plain_text_input', action_id: 'uid' },
      },
    ]);
    expect(drawn).toContain('User id (uid)');
    expect(drawn).toContain('(Exactly as CometChat has it.)');
  });
});
