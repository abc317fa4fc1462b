import { describe, expect, it } from 'vitest';
import { CATEGORIES, PERMISSIONS, permissionsInCategory } from '../../src/cometchat/catalogue.ts';
import { compareKnownMaps, type KnownMap } from '../../src/features/known-maps.ts';
import { SEEN, setMap } from './known-map-fixtures.ts';

const ALL = PERMISSIONS.length;

const keysOf = (map: KnownMap, other: KnownMap) =>
  compareKnownMaps(map, other).differing.map((d) => d.key);

describe('compareKnownMaps', () => {
  it('lists the keys whose values differ, with both values and where each came from', () => {
    const left = setMap({ sendMessage: 'deny', 'listUsers.mode': 'friends' }, 'abc123');
    const comparison = compareKnownMaps(left, undefined);
    expect(comparison.differing).toEqual([
      {
        key: 'listUsers.mode',
        left: { source: 'set', value: 'friends', set: { seenAt: SEEN, ref: 'abc123' } },
        right: { source: 'default', value: 'all' },
      },
      {
        key: 'sendMessage',
        left: { source: 'set', value: 'deny', set: { seenAt: SEEN, ref: 'abc123' } },
        right: { source: 'default', value: 'allow' },
      },
    ]);
    expect(comparison.equal).toBe(ALL - 2);
    expect(comparison.known).toEqual({ left: true, right: false });
  });

  it('counts the keys equal on both sides, listing none of them', () => {
    const comparison = compareKnownMaps(setMap({ sendMessage: 'deny' }), setMap({}, 'r2'));
    expect(comparison.differing.map((d) => d.key)).toEqual(['sendMessage']);
    expect(comparison.equal).toBe(ALL - 1);
  });

  it('finds nothing between two roles this app never changed: both are the defaults', () => {
    expect(compareKnownMaps(undefined, undefined)).toEqual({
      differing: [],
      equal: ALL,
      known: { left: false, right: false },
    });
  });

  it('takes a key a map lacks from the documented defaults, said so for that key', () => {
    const partial: KnownMap = { permissions: { sendMessage: 'deny' }, seenAt: SEEN };
    const [only, ...rest] = compareKnownMaps(partial, setMap({ editMessage: 'deny' })).differing;
    expect(rest.map((d) => d.key)).toEqual(['editMessage']);
    expect(only).toMatchObject({ key: 'sendMessage' });
    expect(rest[0]?.left).toEqual({ source: 'default', value: 'allow' });
  });

  it('orders by the catalogue: its categories, then its keys, whatever order the maps hold', () => {
    const changed = {
      'initiateCall.mode': 'friends',
      'joinGroup.allowedGroupTypes': ['public'],
      sendMessage: 'deny',
      listUsers: 'deny',
    };
    const differing = keysOf(setMap(changed), undefined);
    const order = CATEGORIES.flatMap((c) => permissionsInCategory(c).map((s) => s.key));
    expect(differing).toEqual(order.filter((key) => key in changed));
    // The catalogue file lists initiateCall.mode last; its category puts it among the calls.
    expect(differing).toEqual([
      'listUsers',
      'sendMessage',
      'initiateCall.mode',
      'joinGroup.allowedGroupTypes',
    ]);
  });

  it('puts keys the catalogue lacks after its own, in alphabetical order, unknown where unset', () => {
    const left = setMap({ 'zeta.new': 'on', 'alpha.new': 'on', sendMessage: 'deny' });
    const comparison = compareKnownMaps(left, undefined);
    expect(comparison.differing.map((d) => d.key)).toEqual([
      'sendMessage',
      'alpha.new',
      'zeta.new',
    ]);
    expect(comparison.differing[1]?.right).toEqual({ source: 'none' });
  });

  it('reads lists as sets and no restriction as an empty list, as the editor does', () => {
    const left = setMap({
      'sendMessage.allowedReceiverRoles': ['admin', 'vip'],
      'listUsers.allowedRoles': [],
    });
    const right = setMap({
      'sendMessage.allowedReceiverRoles': ['vip', 'admin'],
      'listUsers.allowedRoles': null,
    });
    expect(keysOf(left, right)).toEqual([]);
    expect(keysOf(left, setMap({ 'sendMessage.allowedReceiverRoles': ['vip'] }))).toEqual([
      'sendMessage.allowedReceiverRoles',
    ]);
  });
});
