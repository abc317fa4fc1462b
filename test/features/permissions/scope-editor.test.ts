import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { initialStateValues } from '../../../offline/slack-standin/view-state.ts';
import type { Access } from '../../../src/access/access.ts';
import { createApps, tryOpenSigned } from '../../../src/apps/apps.ts';
import { decodeChange, encodeChange } from '../../../src/changes/change.ts';
import { baselineFrom } from '../../../src/changes/kinds/permissions.ts';
import type { CometChatClient } from '../../../src/cometchat/client.ts';
import { CometChatError } from '../../../src/cometchat/errors.ts';
import { SHIPPED_SCOPE_CATALOGUE } from '../../../src/cometchat/scope-catalogue.ts';
import { Refusal } from '../../../src/features/feature.ts';
import { reviewDecision } from '../../../src/features/permissions/editor-flow.ts';
import {
  decodeState,
  type EditorState,
  EditorStateSchema,
  encodeState,
  newScopeEditorState,
  type ScopeRef,
  stateRecord,
} from '../../../src/features/permissions/editor-state.ts';
import {
  editorView,
  SHIPPED_CATALOGUE_NOTE,
} from '../../../src/features/permissions/editor-view.ts';
import { parsePermsWords } from '../../../src/features/permissions/index.ts';
import type { StateValues } from '../../../src/features/permissions/read-fields.ts';
import {
  loadScopeEditorView,
  NOT_A_SCOPE,
  scopeWords,
} from '../../../src/features/permissions/scope-editor.ts';
import { runInRequest } from '../../../src/request-context.ts';
import { createMemoryStore, knownScopeKey } from '../../../src/store/store.ts';

// The permission editor on a group's scope (issue 48, Deliver 2): `perms <guid> <scope>`, the
// state it carries in its modal, the view, and the change its review makes.

const problem = (read: unknown) => (read instanceof Refusal ? read.problem : undefined);
const ref: ScopeRef = { guid: 'hiking', scope: 'participant' };

describe('perms with two words is a scope', () => {
  it('reads one word as a role, as before', () => {
    expect(parsePermsWords(['Default'])).toBe('default');
  });

  it('reads a guid (lower-cased, as CometChat stores it) and one of the three scopes', () => {
    expect(parsePermsWords(['Hiking', 'Moderator'])).toEqual({
      guid: 'hiking',
      scope: 'moderator',
    });
  });

  it('refuses a guid that cannot be one and a scope that is not one, in one sentence each', () => {
    expect(problem(parsePermsWords(['hik!ng', 'admin']))).toBe(
      'A guid is lower-case letters, digits, `-` and `_` only, as CometChat stores it.',
    );
    expect(problem(parsePermsWords(['..', 'admin']))).toBe('A guid cannot be `.` or `..`.');
    expect(problem(parsePermsWords(['hiking', 'owner']))).toBe(NOT_A_SCOPE);
    expect(problem(scopeWords('x'.repeat(101), 'admin'))).toBe('A guid is at most 100 characters.');
  });

  it('answers three words with the usage, which names both forms', () => {
    expect(problem(parsePermsWords(['hiking', 'admin', 'extra']))).toMatch(
      /^Usage: `\/cometchat perms &lt;role&gt;` or `\/cometchat perms &lt;guid&gt; &lt;scope&gt;`/,
    );
  });
});

describe("the scope editor's state", () => {
  const state = newScopeEditorState(ref, 'Messages', 1_000);

  it('is on the scope, known under its store key, never a role id', () => {
    expect(state.role).toBe(knownScopeKey('hiking', 'participant'));
    expect(state.scope).toEqual(ref);
    expect(stateRecord(state)).toMatchObject({ q: { g: 'hiking', s: 'participant' } });
    expect(stateRecord(state)).not.toHaveProperty('r');
  });

  it('comes back from the modal as the same state', () => {
    expect(decodeState(encodeState(state))).toEqual(state);
  });

  it('refuses metadata naming both a role and a scope, or a scope that is not one', () => {
    const record = stateRecord(state);
    expect(decodeState(JSON.stringify({ ...record, r: 'default' }))).toBeUndefined();
    expect(
      decodeState(JSON.stringify({ ...record, q: { g: 'hiking', s: 'owner' } })),
    ).toBeUndefined();
    expect(
      decodeState(JSON.stringify({ ...record, q: { g: 'Hiking', s: 'admin' } })),
    ).toBeUndefined();
  });
});

/** The form values Slack would send for the rendered view, one box unticked. */
function untickedForm(state: EditorState, key: string): StateValues {
  const view = editorView({
    state,
    baseline: baselineFrom(undefined, SHIPPED_SCOPE_CATALOGUE),
    roleName: 'Hiking',
    roleIds: [],
    catalogue: SHIPPED_SCOPE_CATALOGUE,
  });
  const values = structuredClone(initialStateValues(view)) as StateValues;
  for (const block of Object.values(values)) {
    for (const field of Object.values(block)) {
      if (field.selected_options?.some((o) => o.value === key)) {
        field.selected_options = field.selected_options.filter((o) => o.value !== key);
      }
    }
  }
  return values;
}

describe("the scope editor's review", () => {
  it('makes a change of the scope with exactly the key changed', () => {
    const state = newScopeEditorState(ref, 'Messages');
    const outcome = reviewDecision({
      state,
      known: undefined,
      values: untickedForm(state, 'sendMessage'),
      viewId: 'V1',
      app: 'default',
      catalogue: SHIPPED_SCOPE_CATALOGUE,
    });
    if (outcome.kind !== 'confirm') throw new Error(`expected confirm, got ${outcome.kind}`);
    expect(outcome.meta).toMatchObject({
      kind: 'scope-permissions',
      guid: 'hiking',
      scope: 'participant',
      role: 'group:hiking:participant',
      changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
    });
    expect(decodeChange(encodeChange(outcome.meta))).toEqual(outcome.meta);
  });

  it('says nothing is to change, of the scope, when no box moved', () => {
    const state = newScopeEditorState(ref, 'Messages');
    const values = initialStateValues(
      editorView({
        state,
        baseline: baselineFrom(undefined, SHIPPED_SCOPE_CATALOGUE),
        roleName: 'Hiking',
        roleIds: [],
        catalogue: SHIPPED_SCOPE_CATALOGUE,
      }),
    ) as StateValues;
    const outcome = reviewDecision({
      state,
      known: undefined,
      values,
      viewId: 'V1',
      app: 'default',
      catalogue: SHIPPED_SCOPE_CATALOGUE,
    });
    expect(outcome).toEqual({ kind: 'nothing', role: state.role, scope: ref });
  });
});

describe("the scope editor's view", () => {
  it('names the group and the scope, and says a scope cannot be read either', () => {
    const view = editorView({
      state: newScopeEditorState(ref, 'Messages'),
      baseline: baselineFrom(undefined, SHIPPED_SCOPE_CATALOGUE),
      roleName: 'Hiking <club>',
      roleIds: [],
      catalogue: SHIPPED_SCOPE_CATALOGUE,
    });
    const text = JSON.stringify(view.blocks);
    expect(text).toContain('*Group:* Hiking &lt;club&gt; `hiking` · *Scope:* `participant`');
    expect(text).toContain("CometChat cannot be asked for a scope's current permissions");
    expect(text).not.toContain('*Role:*');
  });
});

const allowAll: Access = {
  canEdit: async () => true,
  canView: async () => true,
  editRefusal: async () => undefined,
  viewRefusal: async () => undefined,
  moderatorRefusal: async () => undefined,
  limitsViewers: false,
};

/** The editor loaded for one app whose client is `cometchat`, inside a request. */
function load(cometchat: Partial<Record<string, unknown>>, scope = ref) {
  const apps = createApps([
    {
      name: 'default',
      appId: 'a',
      region: 'us',
      apiKey: 'k',
      cometchat: cometchat as unknown as CometChatClient,
      access: allowAll,
    },
  ]);
  const [app] = apps.all;
  if (!app) throw new Error('no app');
  return runInRequest({ ref: 'ref0000004', log: pino({ level: 'silent' }), receivedAt: 0 }, () =>
    loadScopeEditorView({ apps, store: createMemoryStore() }, app, scope),
  ).then((view) => ({
    view,
    // The metadata is signed for the app, as Slack carries it back.
    state: tryOpenSigned(apps, EditorStateSchema, view.private_metadata)?.value,
  }));
}

describe('loadScopeEditorView', () => {
  const notFound = () =>
    new CometChatError({
      kind: 'not_found',
      ref: 'ref0000004',
      operation: 'getGroup',
      serviceCode: 'ERR_GUID_NOT_FOUND',
    });

  it('says in one sentence that CometChat has no such group', async () => {
    const { view } = await load({
      getGroup: vi.fn(async () => {
        throw notFound();
      }),
      listScopePermissionDefinitions: vi.fn(async () => []),
    });
    expect(JSON.stringify(view.blocks)).toContain('CometChat has no group `hiking`.');
  });

  it("opens on the scope's keys as CometChat defines them, on its first category", async () => {
    const { view, state } = await load(
      {
        getGroup: vi.fn(async () => ({
          guid: 'trail',
          name: 'Trail',
          type: 'public',
          membersCount: 2,
        })),
        listScopePermissionDefinitions: vi.fn(async () => [
          {
            id: 'sendMessage',
            dataType: 'string',
            availableValues: ['allow', 'deny'],
            defaultValue: 'deny',
          },
        ]),
      },
      { guid: 'trail', scope: 'moderator' },
    );
    expect(state?.scope).toEqual({ guid: 'trail', scope: 'moderator' });
    expect(state?.category).toBe('Messages');
    expect(JSON.stringify(view.blocks)).toContain('default: deny');
    expect(JSON.stringify(view.blocks)).not.toContain(SHIPPED_CATALOGUE_NOTE);
  });

  it('falls back to the shipped scope keys, and says so, when the definitions cannot be read', async () => {
    const { view, state } = await load(
      {
        getGroup: vi.fn(async () => ({
          guid: 'fallen',
          name: 'Fallen',
          type: 'public',
          membersCount: 2,
        })),
        listScopePermissionDefinitions: vi.fn(async () => {
          throw new Error('unavailable');
        }),
      },
      { guid: 'fallen', scope: 'admin' },
    );
    expect(JSON.stringify(view.blocks)).toContain(SHIPPED_CATALOGUE_NOTE);
    expect(state?.scope).toEqual({ guid: 'fallen', scope: 'admin' });
  });
});
