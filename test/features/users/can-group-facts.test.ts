import { describe, expect, it } from 'vitest';
import type { UserGroup } from '../../../src/cometchat/account-model.ts';
import type { BannedMember, Group } from '../../../src/cometchat/group-model.ts';
import type { PermissionDefinition } from '../../../src/cometchat/schemas.ts';
import {
  type GroupFactsDeps,
  readGroupFacts,
} from '../../../src/features/users/can-group-facts.ts';
import type { KnownPermissions } from '../../../src/store/store.ts';

const HIKING: Group = { guid: 'hiking', name: 'Hiking', type: 'public', membersCount: 3 };
const alice = { uid: 'alice', role: 'default', deactivated: false };
const DEFINITIONS: PermissionDefinition[] = [{ id: 'sendMessage', defaultValue: 'allow' }];

/** Fakes of the reads, each call written down so a test can say what was (not) asked. */
function fakes(
  world: {
    groups?: UserGroup[];
    banned?: BannedMember[];
    known?: KnownPermissions;
    definitions?: () => Promise<PermissionDefinition[]>;
  } = {},
) {
  const asked: string[] = [];
  const warnings: unknown[] = [];
  const deps: GroupFactsDeps = {
    cometchat: {
      getGroup: async (guid) => {
        asked.push(`getGroup ${guid}`);
        if (guid !== HIKING.guid) throw new Error('not_found');
        return HIKING;
      },
      listUserGroups: async (uid) => {
        asked.push(`listUserGroups ${uid}`);
        return world.groups ?? [];
      },
      listBannedMembers: async (guid, { page, perPage }) => {
        asked.push(`listBannedMembers ${guid} ${page}`);
        const all = world.banned ?? [];
        const banned = all.slice((page - 1) * perPage, page * perPage);
        const pages = Math.max(1, Math.ceil(all.length / perPage));
        return {
          banned,
          pagination: {
            total: all.length,
            count: banned.length,
            per_page: perPage,
            current_page: page,
            total_pages: pages,
          },
        };
      },
      listScopePermissionDefinitions: async (guid, scope) => {
        asked.push(`definitions ${guid} ${scope}`);
        return world.definitions ? world.definitions() : DEFINITIONS;
      },
    },
    knownScope: async (guid, scope) => {
      asked.push(`known ${guid} ${scope}`);
      return world.known;
    },
    log: { warn: (...args: unknown[]) => warnings.push(args) },
  };
  return { deps, asked, warnings };
}

const member = (scope?: string): UserGroup => ({
  guid: 'hiking',
  name: 'Hiking',
  type: 'public',
  scope,
});

describe('readGroupFacts', () => {
  it("reads a member's scope and the scope's definitions, and no banned list", async () => {
    const { deps, asked } = fakes({ groups: [member('moderator')] });
    const facts = await readGroupFacts(deps, 'hiking', 'sendMessage', alice);
    expect(facts).toMatchObject({
      group: { guid: 'hiking', type: 'public' },
      membership: { kind: 'member', scope: 'moderator' },
      scope: { known: undefined, catalogue: { source: 'service' } },
    });
    expect(facts.scope.catalogue?.spec('sendMessage')?.default).toBe('allow');
    expect(asked).toEqual([
      'getGroup hiking',
      'listUserGroups alice',
      'known hiking moderator',
      'definitions hiking moderator',
    ]);
  });

  it('asks no definitions when the map this app set names the action', async () => {
    const known: KnownPermissions = {
      app: 'default',
      role: 'group:hiking:participant',
      permissions: { sendMessage: 'deny' },
      seenAt: 1,
    };
    const { deps, asked } = fakes({ groups: [member('participant')], known });
    const facts = await readGroupFacts(deps, 'hiking', 'sendMessage', alice);
    expect(facts.scope).toEqual({ known });
    expect(asked).not.toContain('definitions hiking participant');
  });

  it('lets the shipped keys stand in, logged, when the definitions cannot be read', async () => {
    const { deps, warnings } = fakes({
      groups: [member('participant')],
      definitions: () => Promise.reject(new Error('503')),
    });
    const facts = await readGroupFacts(deps, 'hiking', 'sendMessage', alice);
    expect(facts.scope.catalogue?.source).toBe('fallback');
    expect(warnings).toHaveLength(1);
  });

  it('reads the banned list, every page, for someone who is not a member', async () => {
    const others = Array.from({ length: 1_500 }, (_, i) => ({ uid: `u${i}` }));
    const banned = fakes({ banned: [...others, { uid: 'alice' }] });
    expect((await readGroupFacts(banned.deps, 'hiking', 'sendMessage', alice)).membership).toEqual({
      kind: 'not-member',
      banned: true,
    });
    expect(banned.asked.filter((a) => a.startsWith('listBannedMembers'))).toEqual([
      'listBannedMembers hiking 1',
      'listBannedMembers hiking 2',
    ]);
    const outside = fakes({ banned: others });
    const facts = await readGroupFacts(outside.deps, 'hiking', 'sendMessage', alice);
    expect(facts.membership).toEqual({ kind: 'not-member', banned: false });
    expect(facts.scope).toEqual({});
  });

  it('says the banned list was not read whole when it is longer than ten pages', async () => {
    const many = Array.from({ length: 10_001 }, (_, i) => ({ uid: `u${i}` }));
    const { deps } = fakes({ banned: many });
    const facts = await readGroupFacts(deps, 'hiking', 'sendMessage', alice);
    expect(facts.membership).toEqual({ kind: 'not-member', banned: undefined });
  });

  it("asks nothing of a deactivated user's groups", async () => {
    const { deps, asked } = fakes();
    const facts = await readGroupFacts(deps, 'hiking', 'sendMessage', {
      ...alice,
      deactivated: true,
    });
    expect(facts.membership).toEqual({ kind: 'not-asked', why: 'the account is deactivated' });
    expect(asked).toEqual(['getGroup hiking']);
  });

  it('stops at an unknown group, before anything else is asked', async () => {
    const { deps, asked } = fakes();
    await expect(readGroupFacts(deps, 'nowhere', 'sendMessage', alice)).rejects.toThrow(
      'not_found',
    );
    expect(asked).toEqual(['getGroup nowhere']);
  });

  it('reads no scope when CometChat did not say which, or for joining', async () => {
    const unsaid = fakes({ groups: [member()] });
    expect((await readGroupFacts(unsaid.deps, 'hiking', 'sendMessage', alice)).scope).toEqual({});
    const join = fakes({ groups: [member('participant')] });
    await readGroupFacts(join.deps, 'hiking', 'joinGroup', alice);
    expect(join.asked).toEqual(['getGroup hiking', 'listUserGroups alice']);
  });
});
