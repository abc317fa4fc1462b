import { describe, expect, it } from 'vitest';
import { findSessionIds, readLookupForm } from '../../../src/features/calls/call-lookup.ts';
import { ON_BEHALF_INPUT, SESSION_INPUT } from '../../../src/features/calls/lookup-modal-view.ts';
import { BLOCKS } from '../../../src/slack/ids.ts';

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
        [BLOCKS.lookupOnBehalfOf]: expect.stringContaining('Latin-1'),
      },
    });
    expect(readLookupForm(form('x'.repeat(256)))).toEqual({
      errors: { [BLOCKS.lookupSession]: 'A session id is at most 255 characters.' },
    });
  });
});
