import { describe, expect, it } from 'vitest';
import {
  type KnownLookup,
  type PairApp,
  roleDifferences,
  rolesToRead,
} from '../../../src/features/home/role-differences.ts';
import type { KnownMap } from '../../../src/features/known-maps.ts';
import { setMap } from '../known-map-fixtures.ts';

/** A lookup over maps given as `app/role`; any other role has the documented defaults. */
function lookup(maps: Record<string, KnownMap>): KnownLookup {
  return (app, role) => maps[`${app}/${role}`];
}

const staging: PairApp = { name: 'staging', roles: ['default', 'admin', 'guest', 'vip'] };
const prod: PairApp = { name: 'prod', roles: ['admin', 'default', 'auditor'] };

describe('roleDifferences', () => {
  it('lists the roles both apps list whose known maps differ, with how many keys', () => {
    const known = lookup({
      'staging/admin': setMap({ sendMessage: 'deny', editMessage: 'deny' }),
      // Set through the app, but to the defaults: the same as a role never changed.
      'prod/default': setMap({}),
      // Only in staging: never a difference here.
      'staging/vip': setMap({ sendMessage: 'deny' }),
    });
    expect(roleDifferences([staging, prod], known)).toEqual([
      {
        state: 'compared',
        left: 'staging',
        right: 'prod',
        differing: [{ role: 'admin', keys: 2 }],
        onlyLeft: ['guest', 'vip'],
        onlyRight: ['auditor'],
      },
    ]);
  });

  it("uses compare's rule: lists as sets, a key a map lacks from the defaults", () => {
    const known = lookup({
      'staging/admin': setMap({ 'sendMessage.allowedReceiverRoles': ['admin', 'vip'] }),
      'prod/admin': {
        permissions: { 'sendMessage.allowedReceiverRoles': ['vip', 'admin'] },
        seenAt: 1,
      },
      'staging/default': setMap({ 'listUsers.allowedRoles': [] }),
      'prod/default': setMap({ 'listUsers.allowedRoles': null, sendMessage: 'deny' }),
    });
    const [pair] = roleDifferences([staging, prod], known);
    expect(pair).toMatchObject({ differing: [{ role: 'default', keys: 1 }] });
  });

  it('finds nothing between apps whose roles were never changed', () => {
    const [pair] = roleDifferences([staging, prod], lookup({}));
    expect(pair).toMatchObject({ state: 'compared', differing: [] });
  });

  it('makes every pair of three apps, in the order they are configured', () => {
    const eu: PairApp = { name: 'eu', roles: ['admin'] };
    const known = lookup({ 'eu/admin': setMap({ sendMessage: 'deny' }) });
    const pairs = roleDifferences([staging, prod, eu], known);
    expect(pairs.map((p) => [p.left, p.right])).toEqual([
      ['staging', 'prod'],
      ['staging', 'eu'],
      ['prod', 'eu'],
    ]);
    expect(pairs.map((p) => (p.state === 'compared' ? p.differing : undefined))).toEqual([
      [],
      [{ role: 'admin', keys: 1 }],
      [{ role: 'admin', keys: 1 }],
    ]);
  });

  it('compares no pair with an app whose roles are not known, saying which and why', () => {
    const slow: PairApp = { name: 'slow', roles: 'loading' };
    const broken: PairApp = { name: 'broken', roles: 'unread' };
    const pairs = roleDifferences([staging, slow, broken], lookup({}));
    expect(pairs).toEqual([
      { state: 'loading', left: 'staging', right: 'slow', missing: ['slow'] },
      { state: 'unread', left: 'staging', right: 'broken', missing: ['broken'] },
      { state: 'unread', left: 'slow', right: 'broken', missing: ['slow', 'broken'] },
    ]);
  });

  it('has no pair for one app', () => {
    expect(roleDifferences([staging], lookup({}))).toEqual([]);
  });
});

describe('rolesToRead', () => {
  it('asks for the roles an app shares with another app only', () => {
    const eu: PairApp = { name: 'eu', roles: ['guest', 'eu-only'] };
    const slow: PairApp = { name: 'slow', roles: 'loading' };
    expect(Object.fromEntries(rolesToRead([staging, prod, eu, slow]))).toEqual({
      staging: ['default', 'admin', 'guest'],
      prod: ['admin', 'default'],
      eu: ['guest'],
    });
    expect(rolesToRead([staging])).toEqual(new Map());
  });
});
