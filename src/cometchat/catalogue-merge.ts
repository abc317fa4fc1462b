import {
  type Catalogue,
  type CatalogueSpec,
  catalogueOf,
  OTHER_CATEGORY,
  type PermissionSpec,
} from './catalogue.ts';
import type { PermissionDefinition, PermissionValue } from './schemas.ts';

// An app's catalogue: the shipped one merged with the definitions its CometChat gives
// (`GET /v3/roles/{role}/permissions`, live-api-notes.md). The shipped catalogue stays the source
// of labels, categories and kinds; the service's definitions add what it says the keys are (its
// values, defaults and descriptions) and the keys it defines that the shipped catalogue lacks.
// Pure, so every rule of the merge is unit-tested.

const ACTION_VALUES = ['allow', 'deny'];

/**
 * The shipped `specs` merged with the service's `definitions`: each shipped key with the
 * service's values and default where they fit its kind (else its own), marked when the service no
 * longer defines it; then each key only the service defines, under "Other", its kind inferred from
 * its definition. No definitions at all (an answer with none) leave the shipped catalogue as it is.
 */
export function mergeCatalogue(
  specs: readonly PermissionSpec[],
  definitions: readonly PermissionDefinition[],
): Catalogue {
  if (definitions.length === 0) return catalogueOf(specs, 'service');
  const defined = new Map(definitions.map((definition) => [definition.id, definition]));
  const shipped = new Set(specs.map((spec) => spec.key));
  const merged: CatalogueSpec[] = specs.map((spec) => {
    const definition = defined.get(spec.key);
    return definition ? withDefinition(spec, definition) : { ...spec, undefinedByService: true };
  });
  for (const definition of defined.values()) {
    if (shipped.has(definition.id)) continue;
    const spec = serviceOnlySpec(definition);
    if (spec) merged.push(spec);
  }
  return catalogueOf(merged, 'service');
}

/** The service's description, when it says something. */
function describedBy(definition: PermissionDefinition): { description?: string } {
  const description = definition.description?.trim();
  return description ? { description } : {};
}

/** A shipped key as its definition has it: the service's values and default where they fit. */
function withDefinition(spec: PermissionSpec, definition: PermissionDefinition): CatalogueSpec {
  const said = describedBy(definition);
  const offered = definition.availableValues ?? [];
  switch (spec.kind) {
    case 'action':
      // The editor's checkboxes mean allow and deny: other values could not be shown.
      return {
        ...spec,
        ...said,
        default: oneOf(definition.defaultValue, spec.values, spec.default),
      };
    case 'mode': {
      const values = offered.length >= 2 ? [...offered] : spec.values;
      return {
        ...spec,
        ...said,
        values,
        default: oneOf(definition.defaultValue, values, spec.default),
      };
    }
    case 'fixedList': {
      const values = offered.length > 0 ? [...offered] : spec.values;
      return {
        ...spec,
        ...said,
        values,
        default: listDefault(definition.defaultValue, spec.default),
      };
    }
    case 'roleList':
    case 'freeList':
      return { ...spec, ...said, default: listDefault(definition.defaultValue, spec.default) };
  }
}

/**
 * A key only the service defines, under "Other", labelled by its title: a `string` offering allow
 * and deny is an action, another `string` with values a mode; a `stringArray` with values a fixed
 * list, one without a free list. A `string` without values has no field the editor could show (it
 * is kept and shown wherever a role's map holds it, as any key the catalogue lacks).
 */
export function serviceOnlySpec(definition: PermissionDefinition): CatalogueSpec | undefined {
  const values = [...new Set(definition.availableValues ?? [])];
  const common = {
    key: definition.id,
    label: definition.title?.trim() || definition.id,
    category: OTHER_CATEGORY,
    ...describedBy(definition),
  };
  const initial = definition.defaultValue;
  if (definition.dataType === 'stringArray') {
    return values.length > 0
      ? { ...common, kind: 'fixedList', values, default: listDefault(initial, null) }
      : { ...common, kind: 'freeList', default: listDefault(initial, null) };
  }
  if (definition.dataType !== 'string' || values.length === 0) return undefined;
  const action =
    values.length === ACTION_VALUES.length && ACTION_VALUES.every((v) => values.includes(v));
  const kind = action ? 'action' : 'mode';
  const ordered = action ? ACTION_VALUES : values;
  return { ...common, kind, values: ordered, default: oneOf(initial, ordered, ordered[0] ?? '') };
}

/** The service's default when it is one of `values`, else `fallback`. */
function oneOf(
  value: PermissionValue | undefined,
  values: readonly string[],
  fallback: string,
): string {
  return typeof value === 'string' && values.includes(value) ? value : fallback;
}

/** The service's default of a list key when it is a list (or null: no restriction), else `fallback`. */
function listDefault(
  value: PermissionValue | undefined,
  fallback: string[] | null,
): string[] | null {
  if (value === null || Array.isArray(value)) return value === null ? null : [...value];
  return fallback;
}
