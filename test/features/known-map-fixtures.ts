import { defaultPermissions } from '../../src/cometchat/catalogue.ts';
import type { KnownMap } from '../../src/features/known-maps.ts';

/** When the fixtures' maps were seen, in Unix ms. */
export const SEEN = 1_700_000_000_000;

/** A map as an update answers it: the whole effective map, `changes` over the defaults. */
export function setMap(changes: Record<string, string | string[] | null>, ref?: string): KnownMap {
  return {
    permissions: { ...defaultPermissions(), ...changes },
    seenAt: SEEN,
    ...(ref === undefined ? {} : { ref }),
  };
}
