import { describe, expect, it } from 'vitest';
import { editRefused, REFUSALS, viewRefused } from '../../src/replies/refusals.ts';
import { counted, inApp, roleHoldersSentence } from '../../src/replies/sentences.ts';

describe('sentences', () => {
  it('counts with the noun in the right number', () => {
    expect(counted(1, 'change')).toBe('1 change');
    expect(counted(0, 'change')).toBe('0 changes');
    expect(counted(2, 'match', 'matches')).toBe('2 matches');
  });

  it('says how many users hold a role to delete, in the right number, or that it is not known', () => {
    expect(roleHoldersSentence(0)).toBe('No user holds it.');
    expect(roleHoldersSentence(1)).toBe('1 user holds it (deactivated ones included).');
    expect(roleHoldersSentence(3, ' there')).toBe(
      '3 users hold it there (deactivated ones included).',
    );
    expect(roleHoldersSentence(undefined)).toBe('How many users hold it could not be read.');
  });

  it('names the app only when given one, escaped so it cannot become markup', () => {
    expect(inApp(undefined)).toBe('');
    expect(inApp('staging')).toBe(' in *staging*');
    expect(inApp('<!here>')).not.toContain('<!here>');
  });
});

describe('refusals', () => {
  it('say what was asked and which list decided', () => {
    expect(editRefused('not-listed', 'APPROVERS', 'approve')).toBe(
      "Only the people listed in the app's APPROVERS setting may approve permission changes; ask one of them, or an admin of the app.",
    );
    expect(editRefused('timeout', 'EDITORS', 'approve')).toMatch(
      /could not check that you may approve permission changes; try again/,
    );
    expect(editRefused('slack-error', undefined)).toMatch(
      /^Only workspace admins and owners may change permissions, and Slack answered with an error/,
    );
    expect(REFUSALS.edit).toContain("app's EDITORS setting may change permissions");
    expect(viewRefused('not-listed')).toContain('VIEWERS');
  });
});
