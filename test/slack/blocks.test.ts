import { describe, expect, it } from 'vitest';
import {
  blocksTextLength,
  button,
  context,
  fields,
  header,
  section,
} from '../../src/slack/blocks.ts';

describe('blocksTextLength', () => {
  it('counts every text a reader sees, not ids, values or urls', () => {
    const blocks = [
      header('Title'),
      section('abc', button('OK', 'action_with_a_long_id', 'value-not-counted')),
      fields(['12', '3456']),
      context(['x']),
      { type: 'image', image_url: 'https://example.com/a.png', alt_text: 'alt' },
    ];
    expect(blocksTextLength(blocks)).toBe('Title'.length + 3 + 2 + 2 + 4 + 1);
  });
});
