import { describe, expect, it } from 'vitest';
import {
  commandReply,
  expectNoInjectedMarkup,
  logsWithRef,
  markupOf,
  referenceOf,
  textOf,
} from './harness.ts';
import { useHarness } from './support.ts';

const USAGE = [
  '`/cometchat roles [page]`',
  '`/cometchat perms &lt;role&gt;`',
  '`/cometchat call &lt;sessionId&gt; [as &lt;uid&gt;]`',
  '`/cometchat help`',
];

/** The first mrkdwn block text: where a problem is told. */
function lead(reply: Record<string, unknown>): string {
  return markupOf({ blocks: reply.blocks })[0] ?? '';
}

function expectHelp(reply: Record<string, unknown>): void {
  const text = markupOf(reply).join('\n');
  for (const line of USAGE) expect(text).toContain(line);
  expect(textOf(reply)).toContain('CometChat ops');
  expect(reply.response_type).toBe('ephemeral');
}

/** A refusal points to help in one line, without repeating every subcommand's usage. */
function expectHint(reply: Record<string, unknown>): void {
  const text = markupOf(reply).join('\n');
  expect(text).toContain('`/cometchat help` lists every subcommand.');
  // The problem may quote its own usage; the whole list is not repeated.
  expect(textOf(reply)).not.toContain('CometChat ops');
  expect(USAGE.filter((line) => text.includes(line)).length).toBeLessThanOrEqual(2);
  expect(reply.response_type).toBe('ephemeral');
}

describe('help and malformed input through the real app', () => {
  const h = useHarness(
    {},
    {
      alsoCheck: (running) => {
        // Nothing typed wrong ever reaches CometChat.
        expect(running.sandbox.requests).toEqual([]);
      },
    },
  );

  it('`help` and an empty command show what the app does, with no warning', async () => {
    for (const text of ['help', '', '   ', 'HELP']) {
      const reply = await commandReply(h, text);
      expectHelp(reply);
      expectNoInjectedMarkup(reply);
      expect(textOf(reply)).not.toContain(':warning:');
      expect(referenceOf(reply)).toBeUndefined();
    }
  });

  it('names the Home tab and who grants edit access', async () => {
    const text = markupOf(await commandReply(h, 'help')).join('\n');
    expect(text).toContain('*Home* tab');
    expect(text).toContain('`EDITORS` setting');
    expect(text).toContain('`COMETCHAT_&lt;APP&gt;_EDITORS`');
    expect(text).toContain(
      'CometChat keeps uids in lower case, so a uid is sent in lower case however it is typed.',
    );
  });

  it('an unknown subcommand is named, with a hint to help and a reference found in the log', async () => {
    const reply = await commandReply(h, 'frobnicate now');
    expectHint(reply);
    expect(lead(reply)).toContain('There is no subcommand `frobnicate`.');
    const ref = referenceOf(reply);
    expect(ref).toMatch(/^[0-9a-f]{10}$/);
    const logged = logsWithRef(h, ref ?? '').find((r) => r.message.includes('malformed'));
    expect(logged).toMatchObject({
      log: { level: 'info' },
      cometchat_ops: { problem: 'There is no subcommand `frobnicate`.' },
    });
  });

  it('what a person types is escaped like any outside text', async () => {
    // Slack sends `<`, `>` and `&` typed in a command as entities; mentions arrive as markup.
    const reply = await commandReply(h, '<!channel>&amp;<@U0123>');
    expectNoInjectedMarkup(reply);
    expect(lead(reply)).toContain('`&lt;!channel&gt;&amp;&lt;@U0123&gt;`');
  });

  it.each([
    ['roles abc', 'The page must be a whole number from 1 to 10000.'],
    ['roles 0', 'The page must be a whole number from 1 to 10000.'],
    ['roles 1 2', 'Usage: `/cometchat roles [page]`.'],
    ['call', 'Usage: `/cometchat call &lt;sessionId&gt; [as &lt;uid&gt;]`.'],
    [
      'call v1.us.app.1 for someone',
      'Usage: `/cometchat call &lt;sessionId&gt; [as &lt;uid&gt;]`.',
    ],
    ['call v1.us.app.1 as', 'Usage: `/cometchat call &lt;sessionId&gt; [as &lt;uid&gt;]`.'],
    ['call ..', 'A session id cannot be `.` or `..`.'],
    [`call ${'x'.repeat(256)}`, 'A session id is at most 255 characters.'],
    ['call v1.us.app.1 as u\u200Bser', 'A uid cannot contain control characters.'],
    ['perms', 'Usage: `/cometchat perms &lt;role&gt;`'],
    ['perms Not/A/Role', 'A role id is 1 to 100 characters of a-z, 0-9, `-` and `_`'],
  ])('`%s` is refused with one sentence, a hint to help and a reference', async (text, problem) => {
    const reply = await commandReply(h, text);
    expect(lead(reply).startsWith(`:warning: ${problem}`), lead(reply)).toBe(true);
    expectHint(reply);
    const ref = referenceOf(reply);
    expect(ref).toMatch(/^[0-9a-f]{10}$/);
    expect(logsWithRef(h, ref ?? '').some((r) => r.message.includes('malformed'))).toBe(true);
    expectNoInjectedMarkup(reply);
  });

  it('a session id with spaces is pointed to the shortcut', async () => {
    const reply = await commandReply(h, 'call support room #42');
    expect(lead(reply)).toContain('use the *Look up a call* shortcut');
  });
});
