import { describe, expect, it } from 'vitest';
import { CometChatError, isCometChatError, kindForStatus } from '../../src/cometchat/errors.ts';

describe('kindForStatus', () => {
  it.each([
    [400, 'bad_request'],
    [401, 'unauthorized'],
    [403, 'unauthorized'],
    [404, 'not_found'],
    [405, 'bad_request'],
    [408, 'timeout'],
    [413, 'bad_request'],
    [422, 'bad_request'],
    [429, 'rate_limited'],
    [500, 'unavailable'],
    [502, 'unavailable'],
    [503, 'unavailable'],
    [504, 'unavailable'],
    [599, 'unavailable'],
  ] as const)('maps %i to %s', (status, kind) => {
    expect(kindForStatus(status)).toBe(kind);
  });
});

describe('CometChatError', () => {
  it('says what failed, how, and under which reference, in one line', () => {
    const error = new CometChatError({
      kind: 'not_found',
      ref: 'a1b2c3d4e5',
      operation: 'setRolePermissions',
      status: 404,
      serviceCode: 'ERR_ROLE_NOT_FOUND',
      serviceMessage: 'The role does not exist.',
    });
    expect(error.message).toBe(
      'setRolePermissions: not_found - HTTP 404 - ERR_ROLE_NOT_FOUND - The role does not exist. (ref a1b2c3d4e5)',
    );
    expect(error.name).toBe('CometChatError');
    expect(String(error)).toBe(`CometChatError: ${error.message}`);
    expect(error).toBeInstanceOf(Error);
    expect(isCometChatError(error)).toBe(true);
    expect(isCometChatError(new Error('x'))).toBe(false);
    expect(isCometChatError({ kind: 'not_found' })).toBe(false);
  });

  it('keeps its fields, and only plain data, when serialised', () => {
    const error = new CometChatError({
      kind: 'rate_limited',
      ref: 'r',
      operation: 'listRoles',
      status: 429,
      retryAfterSeconds: 30,
      details: { perPage: ['too big'] },
      detail: 'ECONNRESET',
    });
    const json = JSON.parse(JSON.stringify(error)) as Record<string, unknown>;
    expect(json).toMatchObject({
      kind: 'rate_limited',
      ref: 'r',
      operation: 'listRoles',
      status: 429,
      retryAfterSeconds: 30,
      details: { perPage: ['too big'] },
      detail: 'ECONNRESET',
    });
    // Fields left undefined (serviceCode, serviceMessage here) are simply absent.
    expect(Object.keys(json).sort()).toEqual(
      [
        'detail',
        'details',
        'kind',
        'mayHaveReached',
        'name',
        'operation',
        'ref',
        'retryAfterSeconds',
        'status',
      ].sort(),
    );
  });
});
