import { z } from 'zod';
import { validatePermissions } from '../../cometchat/catalogue.ts';
import { PermissionMapSchema } from '../../cometchat/schemas.ts';
import presetData from './presets.json' with { type: 'json' };

// The presets a new role can start from, shipped as data: each a name, what it means in words,
// and the permissions it sets (every other key keeps its default). Checked against the
// catalogue when loaded, so a preset can never send a value CometChat would refuse.

const PresetSchema = z.object({
  name: z.string().regex(/^[a-z-]+$/),
  about: z.string(),
  permissions: PermissionMapSchema,
});
export type Preset = z.infer<typeof PresetSchema>;

export const PRESETS: readonly Preset[] = Object.freeze(
  z
    .object({ presets: z.array(PresetSchema).min(1) })
    .parse(presetData)
    .presets.map((preset) => {
      const checked = validatePermissions(preset.permissions);
      if (!checked.ok) throw new Error(`preset ${preset.name}: ${JSON.stringify(checked.errors)}`);
      return preset;
    }),
);

export function presetNamed(name: string): Preset | undefined {
  return PRESETS.find((preset) => preset.name === name.toLowerCase());
}
