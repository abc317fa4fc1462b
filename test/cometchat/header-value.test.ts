import { describe, expect, it } from 'vitest';
import { fitsHeader } from '../../src/cometchat/header-value.ts';

describe('fitsHeader', () => {
  it.each(['cometchat-uid-1', 'ünïcødé-ÿ', 'a b', 'x\ty'])('accepts %j', (value) => {
    expect(fitsHeader(value)).toBe(true);
  });

  it.each(['Ā-beyond-latin1', 'uid-😀', 'a\nb', 'a\rb', 'a\0b', ' padded', 'padded ', '\tpadded'])(
    'refuses %j',
    (value) => {
      expect(fitsHeader(value)).toBe(false);
    },
  );

  it('agrees with what fetch itself can send', () => {
    for (const value of ['ok-ÿ', 'Ā', 'a\nb', ' x']) {
      const sendable = (() => {
        try {
          // Headers trims outer spaces and tabs: a padded value would not arrive as it was.
          return new Headers({ v: value }).get('v') === value;
        } catch {
          return false;
        }
      })();
      expect(fitsHeader(value), JSON.stringify(value)).toBe(sendable);
    }
  });
});
