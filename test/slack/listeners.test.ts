import { describe, expect, it } from 'vitest';
import { handlerTable } from '../../src/slack/listeners.ts';

describe('handlerTable', () => {
  it('finds an exact id before any pattern, and patterns in the order they were added', () => {
    const table = handlerTable<string>('action');
    table.add(/^roles_page/, 'first pattern');
    table.add(/^roles/, 'second pattern');
    table.add('roles_page', 'exact');
    expect(table.find('roles_page')).toBe('exact');
    expect(table.find('roles_page:3')).toBe('first pattern');
    expect(table.find('roles_share')).toBe('second pattern');
  });

  it('finds nothing for an id no handler claims, or no id at all', () => {
    const table = handlerTable<string>('view');
    table.add('perms_editor', 'editor');
    expect(table.find('perms_confirm')).toBeUndefined();
    expect(table.find(undefined)).toBeUndefined();
  });

  it('refuses a second handler for the same id', () => {
    const table = handlerTable<string>('shortcut');
    table.add('lookup_call_global', 'one');
    expect(() => table.add('lookup_call_global', 'two')).toThrow(
      'two shortcut handlers for lookup_call_global',
    );
  });
});
