import { describe, expect, it, vi } from 'vitest';
import { FALLBACK_CATALOGUE, OTHER_CATEGORY } from '../../src/cometchat/catalogue.ts';
import {
  CATALOGUE_TTL_MS,
  createCatalogueReader,
  FALLBACK_MS,
} from '../../src/cometchat/catalogue-reader.ts';
import type { PermissionDefinition } from '../../src/cometchat/schemas.ts';
import { runInRequest } from '../../src/request-context.ts';

// An app's catalogue is read at most every five minutes; after a failed read the shipped one
// stands in for half a minute (issue 32).

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
    expect(listPermissionDefinitions).toHaveBeenCalledWith('default');
    now += CATALOGUE_TTL_MS - 1;
    await read();
    expect(listPermissionDefinitions).toHaveBeenCalledTimes(1);
    now += 2;
    await read();
    expect(listPermissionDefinitions).toHaveBeenCalledTimes(2);
  });

  it('answers the shipped catalogue when the read fails, for a short while, then asks again', async () => {
    let now = 0;
    const listPermissionDefinitions = vi
      .fn<() => Promise<PermissionDefinition[]>>()
      .mockRejectedValueOnce(new Error('CometChat is unavailable'))
      .mockResolvedValue([extra]);
    const warn = vi.fn();
    const read = createCatalogueReader({ listPermissionDefinitions }, { now: () => now });
    const failed = await runInRequest(
      { ref: 'ref-cat', log: { warn } as never, receivedAt: 0 },
      () => read(),
    );
    expect(failed).toBe(FALLBACK_CATALOGUE);
    expect(failed.source).toBe('fallback');
    expect(warn).toHaveBeenCalledTimes(1);
    // Within the fallback's while, CometChat is not asked again (an outage would cost every ask).
    now += FALLBACK_MS - 1;
    expect(await read()).toBe(FALLBACK_CATALOGUE);
    expect(listPermissionDefinitions).toHaveBeenCalledTimes(1);
    now += 1;
    const next = await read();
    expect(next.source).toBe('service');
    expect(listPermissionDefinitions).toHaveBeenCalledTimes(2);
  });
});
