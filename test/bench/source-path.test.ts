import { describe, expect, it } from 'vitest';
import { sourcePath } from '../../bench/processes.ts';

describe('sourcePath', () => {
  it('names a file of the build by the source it was compiled from', () => {
    expect(sourcePath('dist/cometchat/client.js')).toBe('src/cometchat/client.ts');
    expect(sourcePath('dist/main.js')).toBe('src/main.ts');
  });

  it('leaves every other path as it is', () => {
    expect(sourcePath('node_modules/@slack/bolt/dist/App.js')).toBe(
      'node_modules/@slack/bolt/dist/App.js',
    );
    expect(sourcePath('src/main.ts')).toBe('src/main.ts');
    expect(sourcePath('dist/app.js.map')).toBe('dist/app.js.map');
  });
});
