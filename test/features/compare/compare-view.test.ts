import { describe, expect, it } from 'vitest';
import { assertWithinLimits } from '../../../offline/slack-standin/block-kit-limits.ts';
import { cellText } from '../../../offline/stack/terminal-render.ts';
import { PERMISSIONS } from '../../../src/cometchat/catalogue.ts';
import { compareMessage } from '../../../src/features/compare/compare-view.ts';
import { compareKnownMaps } from '../../../src/features/known-maps.ts';
import { SEEN, setMap } from '../known-map-fixtures.ts';

const ISO = '2023-11-14T22:13:20Z';
const ALL = PERMISSIONS.length;

const roles = (appName?: string) =>
  ({ kind: 'roles', left: 'admin', right: 'default', appName }) as const;

type Json = Record<string, unknown>;
const blocksOf = (message: { blocks?: unknown[] }) => (message.blocks ?? []) as Json[];
const tableOf = (message: { blocks?: unknown[] }) =>
  blocksOf(message).find((b) => b.type === 'table') as { rows: unknown[][] } | undefined;
const rowsOf = (message: { blocks?: unknown[] }) =>
  (tableOf(message)?.rows ?? []).map((row) => row.map(cellText));
/** Every mrkdwn text and the message's own text: what Slack parses. */
function markup(message: { text: string; blocks?: unknown[] }): string[] {
  const out = [message.text];
  JSON.stringify(message.blocks, (_key, value: unknown) => {
    const v = value as Json | null;
    if (v && v.type === 'mrkdwn' && typeof v.text === 'string') out.push(v.text);
    return value;
  });
  return out;
}

describe('compareMessage', () => {
  it('shows each differing key with both values and where each came from, as a table', () => {
    const left = setMap({ sendMessage: 'deny', 'listUsers.allowedRoles': ['admin'] }, 'abc123');
    const message = compareMessage(roles(), compareKnownMaps(left, undefined));
    expect(rowsOf(message)).toEqual([
      ['Key', 'admin', 'default'],
      [
        'User Listing Role Filter (listUsers.allowedRoles)',
        `admin\nas this app last set the role, 2023-11-14 22:13 (ref abc123)`,
        'no restriction\nthe documented default',
      ],
      [
        'Message Sending (sendMessage)',
        `deny\nas this app last set the role, 2023-11-14 22:13 (ref abc123)`,
        'allow\nthe documented default',
      ],
    ]);
    const text = JSON.stringify(message.blocks);
    expect(text).toContain(`*2 keys differ*; ${ALL - 2} keys are equal and not listed.`);
    expect(message.text).toBe(
      `Compare \`admin\` and \`default\`: 2 keys differ, ${ALL - 2} keys are equal.`,
    );
  });

  it('writes keys (after their labels) and values as code, the time as a date element, the reference as code', () => {
    const message = compareMessage(
      roles(),
      compareKnownMaps(setMap({ sendMessage: 'deny' }, 'abc123'), undefined),
    );
    const [, row] = tableOf(message)?.rows ?? [];
    const runs = (cell: unknown) =>
      (cell as { elements: { elements: Json[] }[] }).elements[0]?.elements;
    expect(runs(row?.[0])).toEqual([
      { type: 'text', text: 'Message Sending', style: { bold: true } },
      { type: 'text', text: ' (' },
      { type: 'text', text: 'sendMessage', style: { code: true } },
      { type: 'text', text: ')' },
    ]);
    expect(runs(row?.[1])).toEqual([
      { type: 'text', text: 'deny', style: { code: true } },
      { type: 'text', text: '\n' },
      { type: 'text', text: 'as this app last set the role, ' },
      { type: 'date', timestamp: SEEN / 1000, format: '{date_short_pretty} {time}', fallback: ISO },
      { type: 'text', text: ' (ref ' },
      { type: 'text', text: 'abc123', style: { code: true } },
      { type: 'text', text: ')' },
    ]);
    // A map an earlier version stored has no reference: the date alone.
    const old = compareMessage(
      roles(),
      compareKnownMaps(setMap({ sendMessage: 'deny' }), undefined),
    );
    expect(rowsOf(old)[1]?.[1]).toBe('deny\nas this app last set the role, 2023-11-14 22:13');
  });

  it('names the app with several, and the two apps when one role is compared across them', () => {
    const comparison = compareKnownMaps(setMap({ sendMessage: 'deny' }), undefined);
    const inStaging = compareMessage(roles('staging'), comparison);
    expect(JSON.stringify(inStaging.blocks)).toContain('Compare admin and default · staging');
    expect(inStaging.text).toMatch(/^Compare `admin` and `default` in \*staging\*:/);
    const across = compareMessage(
      { kind: 'apps', role: 'admin', left: 'staging', right: 'prod' },
      comparison,
    );
    expect(rowsOf(across)[0]).toEqual(['Key', 'staging', 'prod']);
    expect(across.text).toMatch(/^Compare `admin` in \*staging\* and \*prod\*:/);
  });

  it('says so when neither side was ever changed: both documented defaults, and identical', () => {
    const message = compareMessage(roles(), compareKnownMaps(undefined, undefined));
    expect(tableOf(message)).toBeUndefined();
    expect(markup(message)).toContain(
      'This app has never changed `admin` or `default`: both are the documented defaults, and identical.',
    );
    const across = compareMessage(
      { kind: 'apps', role: 'admin', left: 'staging', right: 'prod' },
      compareKnownMaps(undefined, undefined),
    );
    expect(markup(across)).toContain(
      'This app has never changed `admin` in *staging* or *prod*: both are the documented defaults, and identical.',
    );
  });

  it('says no key differs when two known maps agree, counting the equal keys', () => {
    const message = compareMessage(roles(), compareKnownMaps(setMap({}), setMap({})));
    expect(tableOf(message)).toBeUndefined();
    expect(markup(message)).toContain(`No key differs: ${ALL} keys are equal.`);
  });

  it('says in its context line why it compares what this app set', () => {
    const message = compareMessage(roles(), compareKnownMaps(undefined, undefined));
    const contextLine = markup(message).at(-1);
    expect(contextLine).toContain("CometChat offers no read of a role's configured permissions");
    expect(contextLine).toContain('this compares what this app set');
  });

  it('shows a stored value exactly in rich text, never as mrkdwn, whatever it holds', () => {
    const hostile = '<!channel> *bold* <https://evil.example|docs> `x`';
    const left = setMap({ 'sendMessage.allowedCustomTypes': [hostile], 'odd<!here>': hostile });
    const message = compareMessage(roles(), compareKnownMaps(left, undefined));
    const rows = rowsOf(message);
    expect(rows[1]?.[1]).toContain(hostile);
    expect(rows.at(-1)?.[0]).toBe('odd<!here>');
    expect(rows.at(-1)?.[2]).toBe('not set');
    // Neither the value nor the key reaches text Slack parses.
    for (const text of markup(message)) {
      expect(text).not.toContain('<!channel>');
      expect(text).not.toContain('<!here>');
      expect(text).not.toContain('evil');
    }
    assertWithinLimits('message', message);
  });

  it('cuts the table to what fits Slack, saying how many more keys differ', () => {
    const long = Array.from({ length: 40 }, (_, i) => `custom-type-${i}`.padEnd(99, 'x'));
    const changes = Object.fromEntries(
      PERMISSIONS.map((spec) => [
        spec.key,
        spec.kind === 'action' ? 'deny' : spec.kind === 'mode' ? (spec.values.at(-1) ?? '') : long,
      ]),
    );
    const extra = Object.fromEntries(
      Array.from({ length: 80 }, (_, i) => [`service.key${i}`, 'on']),
    );
    const comparison = compareKnownMaps(setMap({ ...changes, ...extra }, 'abc123'), undefined);
    const message = compareMessage(roles(), comparison);
    assertWithinLimits('message', message);
    const shown = (tableOf(message)?.rows.length ?? 0) - 1;
    expect(shown).toBeGreaterThan(10);
    expect(shown).toBeLessThan(comparison.differing.length);
    const more = comparison.differing.length - shown;
    expect(markup(message)).toContain(`…and ${more} more keys differ, not shown.`);
    // A long value is cut, not the whole cell.
    expect(
      rowsOf(message)
        .flat()
        .filter((cell) => /…\nas this app/.test(cell)).length,
    ).toBeGreaterThan(0);
  });
});
