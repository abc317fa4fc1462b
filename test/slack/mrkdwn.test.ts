import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  code,
  codeList,
  codeUpTo,
  duration,
  escapedUpTo,
  escapeMrkdwn,
  hms,
  joinedUpTo,
  link,
  plainOfMrkdwn,
  slackDate,
  truncate,
} from '../../src/slack/mrkdwn.ts';

const Z = '\u200B';

/** Strings rich in what breaks mrkdwn: control and formatting characters, surrogates, marks. */
const nasty = fc.string({
  unit: fc.oneof(
    fc.constantFrom('&', '<', '>', '*', '_', '~', '`', '|', '!', '@', '#', '\n', ' ', ';'),
    fc.constantFrom('amp', 'lt', 'gt', '😀', '👩‍👩‍👧', 'é', 'e\u0301', '🇫🇷'),
    fc.string({ unit: 'grapheme', maxLength: 3 }),
  ),
  maxLength: 60,
});

const HALF_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const STRAY_AMPERSAND = /&(?!amp;|lt;|gt;)/;
const BARE_FORMATTING = /(?<!\u200B)[*_~`]|[*_~`](?!\u200B)/;

/** Every start of `s` that ends between two whole user-perceived characters, '' first. */
const wholeStarts = (s: string) => {
  const starts = [''];
  for (const { segment } of new Intl.Segmenter('en').segment(s)) {
    starts.push(`${starts.at(-1)}${segment}`);
  }
  return starts;
};

const unescapeAll = (s: string) =>
  s.replaceAll(Z, '').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');

describe('escapeMrkdwn', () => {
  it.each([
    ['<!channel>', '&lt;!channel&gt;'],
    ['<@U123>', '&lt;@U123&gt;'],
    ['<#C1>', '&lt;#C1&gt;'],
    ['<https://x|y>', '&lt;https://x|y&gt;'],
    ['Fish & Chips', 'Fish &amp; Chips'],
    ['&amp;', '&amp;amp;'],
  ])('defeats the control sequence in %j', (input, expected) => {
    expect(escapeMrkdwn(input)).toBe(expected);
  });

  it('wraps formatting characters in zero-width spaces', () => {
    expect(escapeMrkdwn('*_~`')).toBe(`${Z}*${Z}${Z}_${Z}${Z}~${Z}${Z}\`${Z}`);
    expect(escapeMrkdwn('super_admin')).toBe(`super${Z}_${Z}admin`);
  });

  it('stops a leading > from opening a block quote, on every line', () => {
    expect(escapeMrkdwn('> quoted\nno > quote\n>again')).toBe(
      `${Z}&gt; quoted\nno &gt; quote\n${Z}&gt;again`,
    );
  });

  it('leaves ordinary text alone', () => {
    expect(escapeMrkdwn('Moderator (EU) – ünïcødé 😀')).toBe('Moderator (EU) – ünïcødé 😀');
  });

  it('property: no < or >, and every & starts &amp; &lt; or &gt;', () => {
    fc.assert(
      fc.property(fc.oneof(nasty, fc.string({ unit: 'binary' })), (s) => {
        const escaped = escapeMrkdwn(s);
        expect(escaped).not.toMatch(/[<>]/);
        expect(escaped).not.toMatch(STRAY_AMPERSAND);
      }),
    );
  });

  it('property: every formatting character sits between zero-width spaces', () => {
    fc.assert(
      fc.property(nasty, (s) => {
        expect(escapeMrkdwn(s)).not.toMatch(BARE_FORMATTING);
      }),
    );
  });

  it('property: nothing is lost (drop U+200B, decode entities, get the input back)', () => {
    fc.assert(
      fc.property(
        nasty.filter((s) => !s.includes(Z)),
        (s) => {
          expect(unescapeAll(escapeMrkdwn(s))).toBe(s);
        },
      ),
    );
  });
});

describe('truncate', () => {
  it('returns text that fits unchanged', () => {
    expect(truncate('hello', 5)).toBe('hello');
    expect(truncate('', 0)).toBe('');
  });

  it('cuts with an ellipsis, within max', () => {
    expect(truncate('hello world', 8)).toBe('hello w…');
    expect(truncate('hello world', 7)).toBe('hello…');
    expect(truncate('hello', 1)).toBe('…');
    expect(truncate('hello', 0)).toBe('');
  });

  it('never cuts an entity in half', () => {
    expect(truncate('a&amp;b&lt;c', 5)).toBe('a…');
    expect(truncate('a&amp;b&lt;c', 7)).toBe('a&amp;…');
  });

  it('never cuts a surrogate pair, emoji sequence or combining mark', () => {
    expect(truncate('😀😀😀', 4)).toBe('😀…');
    expect(truncate('👩‍👩‍👧👩‍👩‍👧', 10)).toBe('👩‍👩‍👧…');
    expect(truncate('e\u0301e\u0301e\u0301', 4)).toBe('e\u0301…');
  });

  it('never cuts a <…> sequence or an escaped formatting character', () => {
    expect(truncate('see <https://example.com|docs> now', 12)).toBe('see…');
    expect(truncate(escapeMrkdwn('a*b*c'), 5)).toBe(`a${Z}*${Z}…`);
    expect(truncate(escapeMrkdwn('a*b*c'), 4)).toBe('a…');
  });

  it('rejects a max that is not a non-negative integer', () => {
    expect(() => truncate('x', -1)).toThrow(RangeError);
    expect(() => truncate('x', 1.5)).toThrow(RangeError);
    expect(() => truncate('x', Number.NaN)).toThrow(RangeError);
  });

  it('property: respects max, keeps a prefix, ends with … only when cut', () => {
    fc.assert(
      fc.property(fc.oneof(nasty, fc.string({ unit: 'binary' })), fc.nat(80), (s, max) => {
        const cut = truncate(s, max);
        expect(cut.length).toBeLessThanOrEqual(max);
        if (s.length <= max) {
          expect(cut).toBe(s);
        } else if (max > 0) {
          expect(cut.endsWith('…')).toBe(true);
          expect(s.startsWith(cut.slice(0, -1))).toBe(true);
        }
      }),
    );
  });

  it('property: cuts plain text at max, less the ellipsis, then trims', () => {
    const plain = fc.string({ unit: fc.constantFrom(...'ab z.,;>=\t\n-_'.split('')) });
    fc.assert(
      fc.property(plain, fc.integer({ min: 1, max: 40 }), (s, max) => {
        fc.pre(s.length > max);
        expect(truncate(s, max)).toBe(`${s.slice(0, max - 1).trimEnd()}…`);
      }),
    );
  });

  it('property: never leaves a lone surrogate (from well-formed input)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.nat(40), (s, max) => {
        expect(truncate(s, max)).not.toMatch(HALF_SURROGATE);
      }),
    );
  });

  it('property: never leaves half an entity or half an escaped formatting character', () => {
    fc.assert(
      fc.property(nasty, fc.nat(80), (s, max) => {
        const cut = truncate(escapeMrkdwn(s), max);
        expect(cut).not.toMatch(STRAY_AMPERSAND);
        expect(cut).not.toMatch(BARE_FORMATTING);
        expect(cut).not.toMatch(HALF_SURROGATE);
      }),
    );
  });
});

describe('plainOfMrkdwn', () => {
  it('gives back the text escaped in bold, and code spans without their marks', () => {
    fc.assert(
      fc.property(nasty, (text) => {
        expect(plainOfMrkdwn(`*${escapeMrkdwn(text)}*`)).toBe(text);
      }),
    );
    fc.assert(
      fc.property(nasty, (text) => {
        const copyable = text.replace(/[`\r\n\u2028\u2029]/g, '');
        expect(plainOfMrkdwn(code(copyable))).toBe(copyable);
      }),
    );
  });

  it("reads a user's mention as their id and a channel's as # and its name, else its id", () => {
    expect(plainOfMrkdwn('Approved by <@U0LEAD> in <#C0APPROVE> and <#C0OPS|ops>.')).toBe(
      'Approved by U0LEAD in #C0APPROVE and #ops.',
    );
    // Text the app escaped is never read as a mention.
    expect(plainOfMrkdwn(escapeMrkdwn('<@U0LEAD>'))).toBe('<@U0LEAD>');
  });

  it('takes the marks off a sentence that mixes them', () => {
    expect(plainOfMrkdwn(`*Message Sending* (${code('send*Message')}) & ${code('a_b')}`)).toBe(
      'Message Sending (send*Message) & a_b',
    );
  });
});

describe('code', () => {
  it('escapes control characters and keeps what people copy', () => {
    expect(code('<@U1> & co')).toBe('`&lt;@U1&gt; &amp; co`');
    expect(code('v1.us.2cc_sess*ion~1')).toBe('`v1.us.2cc_sess*ion~1`');
  });

  it('neutralises backticks and line breaks', () => {
    expect(code('a`b')).toBe('`a\u02CBb`');
    expect(code('a\nb\r\nc')).toBe('`a b c`');
  });

  it('gives nothing for an empty string (`` would show as two backticks)', () => {
    expect(code('')).toBe('');
  });

  it('cuts the text first, then escapes it, within `max` characters inside the span', () => {
    expect(codeUpTo('v1.us.app.1', 100)).toBe('`v1.us.app.1`');
    expect(codeUpTo('&'.repeat(300), 12)).toBe('`&amp;&amp;…`');
    expect(codeUpTo('abcdef', 4)).toBe('`abc…`');
    // The cut would fall inside the `&lt;` of an escaped `<`: the `<` is left out whole.
    expect(codeUpTo('ab<cd', 6)).toBe('`ab…`');
    expect(codeUpTo('ab<cd', 7)).toBe('`ab&lt;…`');
    expect(codeUpTo('a\r\nb\r\nc', 4)).toBe('`a b…`');
  });

  it('property: the shown text is the escaping of a start of the text, whole characters', () => {
    fc.assert(
      fc.property(nasty, fc.integer({ min: 1, max: 50 }), (s, max) => {
        const out = codeUpTo(s, max);
        const body = out.slice(1, -1);
        expect(body.length).toBeLessThanOrEqual(max);
        expect(body).not.toMatch(STRAY_AMPERSAND);
        if (!body.endsWith('…')) {
          expect(out).toBe(code(s));
          return;
        }
        const starts = wholeStarts(s).map((start) => code(start.trimEnd()).slice(1, -1));
        expect(starts).toContain(body.slice(0, -1));
      }),
    );
  });

  it('property: one code span, no control characters inside', () => {
    fc.assert(
      fc.property(nasty.filter(Boolean), (s) => {
        const out = code(s);
        expect(out.startsWith('`') && out.endsWith('`')).toBe(true);
        const body = out.slice(1, -1);
        expect(body).not.toMatch(/[<>`\n]/);
        expect(body).not.toMatch(STRAY_AMPERSAND);
      }),
    );
  });
});

describe('escapedUpTo', () => {
  it('cuts, then escapes, so a cut is never inside an entity', () => {
    // `Tom &amp; Jerry`: a cut at 7 or 8 would fall inside `&amp;`, so the `&` is left out.
    for (const max of [6, 7, 8, 9]) expect(escapedUpTo('Tom & Jerry', max)).toBe('Tom…');
    expect(escapedUpTo('Tom & Jerry', 10)).toBe('Tom &amp;…');
    expect(escapedUpTo('a*b*c', 5)).toBe(`a${Z}*${Z}…`);
    expect(escapedUpTo('a*b*c', 4)).toBe('a…');
    expect(escapedUpTo('e\u0301e\u0301&', 5)).toBe('e\u0301e\u0301…');
    expect(() => escapedUpTo('x', -1)).toThrow(RangeError);
  });

  it('property: the result is the escaping of a start of the text, whole characters', () => {
    fc.assert(
      fc.property(nasty, fc.integer({ min: 1, max: 50 }), (s, max) => {
        const out = escapedUpTo(s, max);
        if (!out.endsWith('…') || escapeMrkdwn(s).length <= max) {
          expect(out).toBe(escapeMrkdwn(s));
          return;
        }
        const kept = unescapeAll(out.slice(0, -1));
        expect(s.startsWith(kept)).toBe(true);
        expect(escapeMrkdwn(kept)).toBe(out.slice(0, -1));
        // Whole characters: the next one is not a mark or the rest of a pair or sequence.
        expect(wholeStarts(s).map((start) => start.trimEnd())).toContain(kept);
      }),
    );
  });

  it('escapes, and keeps the bound however much escaping lengthens', () => {
    expect(escapedUpTo('plain', 10)).toBe('plain');
    expect(escapedUpTo('<'.repeat(100), 10)).toBe('&lt;&lt;…');
    fc.assert(
      fc.property(nasty, fc.integer({ min: 1, max: 50 }), (s, max) => {
        const out = escapedUpTo(s, max);
        expect(out.length).toBeLessThanOrEqual(max);
        expect(out).not.toMatch(STRAY_AMPERSAND);
      }),
    );
  });
});

describe('codeList', () => {
  it('makes each id its own code span, joined with commas, with no zero-width space', () => {
    expect(codeList(['admin', 'beta_tester'])).toBe('`admin`, `beta_tester`');
    expect(codeList('beta_tester')).toBe('`beta_tester`');
    expect(codeList(['a<b', '', '*x*'])).toBe('`a&lt;b`, `*x*`');
    expect(codeList([])).toBe('');
    expect(codeList(['beta_tester', 'vip_1'])).not.toContain(Z);
  });

  it('keeps whole ids within max, the first always, then says there are more', () => {
    expect(codeList(['role_1', 'role_2', 'role_3'], 14)).toBe('`role_1`, `role_2`, …');
    expect(codeList(['role_1', 'role_2'], 14)).toBe('`role_1`, `role_2`');
    expect(codeList(['a_very_long_role_id', 'b'], 5)).toBe('`a_very_long_role_id`, …');
  });
});

describe('joinedUpTo', () => {
  it('keeps whole pieces while they fit, then counts the rest; never cuts one', () => {
    const pieces = ['`ana_1`', '*Bo*', '&lt;x&gt;&lt;y&gt;'];
    expect(joinedUpTo(pieces, ', ', 33)).toBe('`ana_1`, *Bo*, &lt;x&gt;&lt;y&gt;');
    expect(joinedUpTo(pieces, ', ', 32)).toBe('`ana_1`, *Bo*, …and 1 more');
    expect(joinedUpTo(pieces, ', ', 25)).toBe('`ana_1`, …and 2 more');
    expect(joinedUpTo(pieces, ', ', 19)).toBe('…and 3 more');
    expect(joinedUpTo([], ', ', 10)).toBe('');
  });

  it('property: within max, and made of whole pieces', () => {
    fc.assert(
      fc.property(
        fc.array(nasty.map(escapeMrkdwn)),
        fc.integer({ min: 12, max: 200 }),
        (p, max) => {
          const out = joinedUpTo(p, '\n', max);
          expect(out.length).toBeLessThanOrEqual(max);
          const lines = out === '' ? [] : out.split('\n');
          const more = lines.at(-1)?.match(/^…and (\d+) more$/);
          const kept = more ? lines.slice(0, -1) : lines;
          expect(kept.join('\n')).toBe(p.slice(0, p.length - Number(more?.[1] ?? 0)).join('\n'));
        },
      ),
    );
  });
});

describe('link', () => {
  it('links http(s) URLs with an escaped label', () => {
    expect(link('https://example.com/calls/1', 'Call *1*')).toBe(
      `<https://example.com/calls/1|Call ${Z}*${Z}1${Z}*${Z}>`,
    );
    expect(link('http://example.com', '<!here>')).toBe('<http://example.com/|&lt;!here&gt;>');
  });

  it('percent-encodes | < > in the URL and writes & as &amp;', () => {
    expect(link('https://example.com/a|b>c?x=1&y=<2>#f|g', 'x')).toBe(
      '<https://example.com/a%7Cb%3Ec?x=1&amp;y=%3C2%3E#f%7Cg|x>',
    );
  });

  it('shows the URL when the label is empty', () => {
    expect(link('https://example.com/x', '')).toBe('<https://example.com/x>');
  });

  it('gives only the escaped text for other schemes and non-URLs', () => {
    expect(link('javascript:alert(1)', 'click <me>')).toBe('click &lt;me&gt;');
    expect(link('slack://open', '')).toBe('slack://open');
    expect(link('not a url', 'Docs')).toBe('Docs');
    expect(link('/relative/path', 'Docs')).toBe('Docs');
  });

  it('property: a link has exactly one < and one >, around one http(s) URL', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), nasty, (u, l) => {
        const out = link(u, l);
        expect(out).toMatch(/^<https?:\/\/[^<>|]+(\|[^<>]*)?>$/);
      }),
    );
  });
});

describe('slackDate', () => {
  it('formats a date token with an ISO-8601 UTC fallback', () => {
    expect(slackDate(1_700_000_000)).toBe(
      '<!date^1700000000^{date_short_pretty} {time}|2023-11-14T22:13:20Z>',
    );
    expect(slackDate(1_700_000_000.9, '{date}')).toBe(
      '<!date^1700000000^{date}|2023-11-14T22:13:20Z>',
    );
  });

  it.each([undefined, null, Number.NaN, Number.POSITIVE_INFINITY, 0, -5, 1e20])(
    'gives — for %s',
    (value) => {
      expect(slackDate(value)).toBe('—');
    },
  );
});

describe('hms / duration', () => {
  it.each([
    [0, '00:00:00'],
    [59, '00:00:59'],
    [61, '00:01:01'],
    [3661, '01:01:01'],
    [86_399, '23:59:59'],
    [360_000, '100:00:00'],
    [90.9, '00:01:30'],
  ])('hms(%s) = %s', (seconds, expected) => {
    expect(hms(seconds)).toBe(expected);
    expect(duration(seconds)).toBe(expected);
  });

  it.each([undefined, null, -1, Number.NaN, Number.POSITIVE_INFINITY])(
    'gives — for %s',
    (value) => {
      expect(hms(value)).toBe('—');
    },
  );
});
