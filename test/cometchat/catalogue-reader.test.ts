import { describe, expect, it, vi } from 'vitest';
import { FALLBACK_CATALOGUE, OTHER_CATEGORY } from '../../src/cometchat/catalogue.ts';
import { CATALOGUE_TTL_MS, createCatalogueReader } from '../../src/cometchat/catalogue-reader.ts';
import type { PermissionDefinition } from '../../src/cometchat/schemas.ts';

// An app's catalogue is read at most every five minutes; a failed read is not kept (issue 32).

const extra: PermissionDefinition = {
  id: 'deleteReaction',
  title: 'Reaction Deleting',
  dataType: 'string',
  availableValues: ['allow', 'deny'],
  defaultValue: 'allow',
};

describe('createCatalogueReader', () => {
  it("asks for `default`'s definitions once within five minutes, again after", async () => {
    let now = 0;
    const listPermissionDefinitions = vi.fn(async () => [extra]);
    const read = createCatalogueReader({ listPermissionDefinitions }, { now: () => now });
    const [first, second] = await Promise.all([read(), read()]);
    expect(first).toBe(second);
    expect(first.source).toBe('service');
    expect(first.inCategory(OTHER_CATEGORY).map((spec) => spec.key)).toEqual(['deleteReaction']);
    expect(listPermissionDefinitions).toHaveBeenCalledTimes(1);
    expect(listPermissionDefinitions).toHaveBeenCalledWith('default', undefined);
    now += CATALOGUE_TTL_MS - 1;
    await read();
    expect(listPermissionDefinitions).toHaveBeenCalledTimes(1);
    now += 2;
    await read();
    expect(listPermissionDefinitions).toHaveBeenCalledTimes(2);
  });

  it('answers the shipped catalogue when the read fails, and tries again at the next ask', async () => {
    const listPermissionDefinitions = vi
      .fn<() => Promise<PermissionDefinition[]>>()
      .mockRejectedValueOnce(new Error('CometChat is unavailable'))
      .mockResolvedValue([extra]);
    const warn = vi.fn();
    const read = createCatalogueReader({ listPermissionDefinitions });
    const failed = await read({ logger: { warn } as never });
    expect(failed).toBe(FALLBACK_CATALOGUE);
    expect(failed.source).toBe('fallback');
    expect(warn).toHaveBeenCalledTimes(1);
    const next = await read();
    expect(next.source).toBe('service');
    expect(listPermissionDefinitions).toHaveBeenCalledTimes(2);
  });
});
