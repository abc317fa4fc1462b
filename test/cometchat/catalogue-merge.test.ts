import { describe, expect, it } from 'vitest';
import {
  OTHER_CATEGORY,
  PERMISSIONS,
  permissionSpec,
  validatePermissions,
} from '../../src/cometchat/catalogue.ts';
import { mergeCatalogue, serviceOnlySpec } from '../../src/cometchat/catalogue-merge.ts';
import type { PermissionDefinition } from '../../src/cometchat/schemas.ts';

// An app's catalogue: the shipped one merged with the definitions its CometChat gives (issue 32,
// item 1). The shipped catalogue keeps its labels, categories and kinds.

/** The service's definition of every shipped key, as the live service words them. */
function definitionsOfShipped(): PermissionDefinition[] {
  return PERMISSIONS.map((spec) => ({
    id: spec.key,
    title: `Allows/Denies ${spec.key}`,
    description: `What ${spec.key} does.`,
    dataType: spec.kind === 'action' || spec.kind === 'mode' ? 'string' : 'stringArray',
    availableValues: 'values' in spec ? [...spec.values] : [],
    defaultValue: spec.default,
  }));
}

const reaction: PermissionDefinition = {
  id: 'deleteReaction',
  title: 'Allows/Denies deleting reactions',
  description: 'When denied, users with the role cannot delete reactions.',
  dataType: 'string',
  availableValues: ['allow', 'deny'],
  defaultValue: 'deny',
};

describe('mergeCatalogue', () => {
  it('puts a key only the service defines under Other, labelled by its title, with its default', () => {
    const catalogue = mergeCatalogue(PERMISSIONS, [...definitionsOfShipped(), reaction]);
    expect(catalogue.source).toBe('service');
    expect(catalogue.categories.at(-1)).toBe(OTHER_CATEGORY);
    expect(catalogue.inCategory(OTHER_CATEGORY)).toEqual([
      {
        key: 'deleteReaction',
        label: 'Allows/Denies deleting reactions',
        category: OTHER_CATEGORY,
        kind: 'action',
        values: ['allow', 'deny'],
        default: 'deny',
        description: 'When denied, users with the role cannot delete reactions.',
      },
    ]);
    expect(catalogue.labelOf('deleteReaction')).toBe('Allows/Denies deleting reactions');
    expect(catalogue.defaults().deleteReaction).toBe('deny');
    // After every shipped key, in the editor's order.
    expect(catalogue.order('deleteReaction')).toBe(PERMISSIONS.length);
    expect(catalogue.specs).toHaveLength(PERMISSIONS.length + 1);
  });

  it('infers the kind of a key only the service defines from its data type and values', () => {
    const kindOf = (definition: Omit<PermissionDefinition, 'id'>) =>
      serviceOnlySpec({ id: 'x.y', ...definition });
    expect(kindOf({ dataType: 'string', availableValues: ['deny', 'allow'] })).toMatchObject({
      kind: 'action',
      values: ['allow', 'deny'],
      default: 'allow',
    });
    expect(
      kindOf({ dataType: 'string', availableValues: ['all', 'friends'], defaultValue: 'friends' }),
    ).toMatchObject({ kind: 'mode', values: ['all', 'friends'], default: 'friends' });
    expect(
      kindOf({ dataType: 'stringArray', availableValues: ['user', 'group'], defaultValue: null }),
    ).toMatchObject({ kind: 'fixedList', values: ['user', 'group'], default: null });
    expect(kindOf({ dataType: 'stringArray', defaultValue: ['a/b'] })).toMatchObject({
      kind: 'freeList',
      default: ['a/b'],
    });
    // A default the values do not hold is not taken; a string without values has no field.
    expect(
      kindOf({ dataType: 'string', availableValues: ['all', 'friends'], defaultValue: 'none' }),
    ).toMatchObject({ kind: 'mode', default: 'all' });
    expect(kindOf({ dataType: 'string', availableValues: [] })).toBeUndefined();
    expect(kindOf({ dataType: 'number' })).toBeUndefined();
    // Without a title, the key is its own label.
    expect(kindOf({ dataType: 'stringArray' })?.label).toBe('x.y');
  });

  it('marks a shipped key the service no longer defines, and keeps it with its own spec', () => {
    const definitions = definitionsOfShipped().filter((d) => d.id !== 'editProfile');
    const catalogue = mergeCatalogue(PERMISSIONS, definitions);
    expect(catalogue.spec('editProfile')).toEqual({
      ...permissionSpec('editProfile'),
      undefinedByService: true,
    });
    expect(catalogue.spec('sendMessage')?.undefinedByService).toBeUndefined();
    expect(catalogue.categories).not.toContain(OTHER_CATEGORY);
  });

  it("takes a shipped key's default, values and description from the service where they fit", () => {
    const definitions = definitionsOfShipped().map((d) => {
      if (d.id === 'sendMessage') return { ...d, defaultValue: 'deny' };
      if (d.id === 'listUsers.mode') return { ...d, availableValues: ['all', 'friends', 'none'] };
      if (d.id === 'createGroup.allowedGroupTypes') return { ...d, defaultValue: ['public'] };
      // An action's values stay allow and deny: the editor's checkboxes mean those.
      if (d.id === 'joinCall') return { ...d, availableValues: ['yes', 'no'], defaultValue: 'no' };
      return d;
    });
    const catalogue = mergeCatalogue(PERMISSIONS, definitions);
    expect(catalogue.spec('sendMessage')).toMatchObject({
      label: 'Message Sending',
      category: 'Messages',
      kind: 'action',
      default: 'deny',
      description: 'What sendMessage does.',
    });
    expect(catalogue.defaults().sendMessage).toBe('deny');
    expect(catalogue.spec('listUsers.mode')).toMatchObject({ values: ['all', 'friends', 'none'] });
    expect(catalogue.spec('createGroup.allowedGroupTypes')?.default).toEqual(['public']);
    expect(catalogue.spec('joinCall')).toMatchObject({
      values: ['allow', 'deny'],
      default: 'allow',
    });
  });

  it('leaves the shipped catalogue as it is when the service defines nothing', () => {
    const catalogue = mergeCatalogue(PERMISSIONS, []);
    expect(catalogue.specs).toEqual(PERMISSIONS);
    expect(catalogue.specs.some((spec) => 'undefinedByService' in spec)).toBe(false);
  });

  it("lets validation accept the service's values for a key only it defines", () => {
    const mode: PermissionDefinition = {
      id: 'shareLocation.mode',
      title: 'Location sharing mode',
      dataType: 'string',
      availableValues: ['nobody', 'friends', 'everyone'],
      defaultValue: 'nobody',
    };
    const catalogue = mergeCatalogue(PERMISSIONS, [...definitionsOfShipped(), reaction, mode]);
    const ok = validatePermissions(
      { deleteReaction: 'deny', 'shareLocation.mode': 'everyone' },
      { catalogue },
    );
    expect(ok.ok).toBe(true);
    const refused = validatePermissions({ 'shareLocation.mode': 'all' }, { catalogue });
    expect(refused).toEqual({
      ok: false,
      errors: {
        'shareLocation.mode': 'shareLocation.mode must be one of nobody, friends, everyone.',
      },
    });
    // Without the app's catalogue the key is unknown, and any permission-shaped value passes.
    expect(validatePermissions({ 'shareLocation.mode': 'all' }).ok).toBe(true);
  });
});
