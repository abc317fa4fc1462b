import { describe, expect, it } from 'vitest';
import { checkPermissionUpdate } from '../../offline/cometchat-standin/permission-catalogue.ts';
import {
  CATEGORIES,
  defaultPermissions,
  holdsRoleIds,
  labelOf,
  PERMISSIONS,
  permissionSpec,
  permissionsInCategory,
  validatePermissions,
} from '../../src/cometchat/catalogue.ts';

const ROLE_IDS = ['default', 'admin', 'premium', 'beta_tester'];

/** The keys service-reference.md section 2.3 names: the catalogue must know every one. */
const REFERENCE_KEYS = [
  'listUsers',
  'sendMessage',
  'editMessage',
  'deleteMessage',
  'initiateCall',
  'createGroup',
  'listGroups',
  'joinGroup',
  'listUsers.mode',
  'getUserDetails.mode',
  'sendMessage.mode',
  'initiateCall.mode',
  'listUsers.allowedRoles',
  'getUserDetails.allowedRoles',
  'sendMessage.allowedReceiverTypes',
  'sendMessage.allowedReceiverRoles',
  'sendMessage.allowedMessageTypes',
  'sendMessage.allowedMessageCategories',
  'sendMessage.allowedMimeTypes',
  'initiateCall.allowedReceiverRoles',
  'createGroup.allowedGroupTypes',
  'listGroups.allowedGroupTypes',
  'joinGroup.allowedGroupTypes',
  'listMessages.allowedMessageCategories',
  'listMessages.allowedMessageTypes',
];

function errorsOf(input: Record<string, unknown>, roleIds?: readonly string[]) {
  const result = validatePermissions(input, { roleIds });
  if (result.ok) throw new Error(`expected problems with ${JSON.stringify(input)}`);
  return result.errors;
}

describe('the catalogue', () => {
  it('knows every key of the reference, each once', () => {
    const keys = PERMISSIONS.map((spec) => spec.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of REFERENCE_KEYS) expect(permissionSpec(key), key).toBeDefined();
    expect(permissionSpec('flagMessage')).toBeUndefined();
  });

  it('has the kinds and values the reference shows', () => {
    expect(permissionSpec('sendMessage')).toMatchObject({ kind: 'action', default: 'allow' });
    expect(permissionSpec('listUsers.mode')).toMatchObject({
      kind: 'mode',
      values: ['all', 'friends'],
    });
    expect(permissionSpec('listUsers.allowedRoles')?.kind).toBe('roleList');
    expect(permissionSpec('sendMessage.allowedMimeTypes')?.kind).toBe('freeList');
    const types = permissionSpec('createGroup.allowedGroupTypes');
    expect(types?.kind).toBe('fixedList');
    if (types?.kind === 'fixedList') {
      expect([...types.values].sort()).toEqual(['password', 'private', 'public']);
    }
    const messageTypes = permissionSpec('sendMessage.allowedMessageTypes');
    if (messageTypes?.kind !== 'fixedList') throw new Error('expected a fixed list');
    expect(messageTypes.values).toEqual(
      expect.arrayContaining(['file', 'audio', 'video', 'image', 'text']),
    );
  });

  it('names a default that its own rules accept, for every key', () => {
    const defaults = defaultPermissions();
    expect(Object.keys(defaults)).toEqual(PERMISSIONS.map((spec) => spec.key));
    expect(validatePermissions(defaults, { roleIds: ROLE_IDS })).toEqual({
      ok: true,
      permissions: defaults,
    });
  });

  it('splits into categories that cover every key once, in catalogue order', () => {
    expect(CATEGORIES.length).toBeGreaterThan(1);
    expect(new Set(CATEGORIES).size).toBe(CATEGORIES.length);
    const covered = CATEGORIES.flatMap((category) =>
      permissionsInCategory(category).map((spec) => spec.key),
    );
    expect([...covered].sort()).toEqual(PERMISSIONS.map((spec) => spec.key).sort());
    expect(permissionsInCategory('No such category')).toEqual([]);
  });

  it("gives every key a short label of its own, as CometChat's dashboard names them", () => {
    const labels = PERMISSIONS.map((spec) => spec.label);
    expect(new Set(labels).size).toBe(labels.length);
    for (const label of labels) expect(label.length, label).toBeLessThanOrEqual(40);
    expect(labelOf('sendMessage')).toBe('Message Sending');
    expect(labelOf('listUsers.mode')).toBe('User Listing Mode');
    expect(labelOf('blockUser.allowedRoles')).toBe('Block User Role Filter');
    expect(labelOf('flagMessage')).toBeUndefined();
  });

  it('cannot be changed by its users', () => {
    expect(Object.isFrozen(PERMISSIONS)).toBe(true);
    expect(Object.isFrozen(CATEGORIES)).toBe(true);
    const defaults = defaultPermissions();
    defaults.sendMessage = 'deny';
    expect(defaultPermissions().sendMessage).toBe('allow');
  });
});

describe('holdsRoleIds', () => {
  it("is true for the catalogue's role lists, and for a user's role only in a user change", () => {
    const roleLists = PERMISSIONS.filter((spec) => spec.kind === 'roleList').map((s) => s.key);
    expect(roleLists).toContain('sendMessage.allowedReceiverRoles');
    for (const key of roleLists) expect(holdsRoleIds(key)).toBe(true);
    expect(holdsRoleIds('sendMessage.allowedCustomTypes')).toBe(false);
    expect(holdsRoleIds('sendMessage')).toBe(false);
    expect(holdsRoleIds('role')).toBe(false);
    expect(holdsRoleIds('role', true)).toBe(true);
    expect(holdsRoleIds('status', true)).toBe(false);
  });
});

describe('validatePermissions', () => {
  it('accepts values the catalogue allows and passes them on unchanged', () => {
    const input = {
      sendMessage: 'deny',
      'sendMessage.mode': 'friends',
      'sendMessage.allowedMessageTypes': ['text', 'image'],
      'sendMessage.allowedMimeTypes': ['image/png', 'video/*', 'application/vnd.ms-excel'],
      'sendMessage.allowedCustomTypes': ['poll', 'location'],
      'listUsers.allowedRoles': ['premium', 'default'],
      'createGroup.allowedGroupTypes': [],
      'listGroups.allowedGroupTypes': null,
    };
    expect(validatePermissions(input, { roleIds: ROLE_IDS })).toEqual({
      ok: true,
      permissions: input,
    });
  });

  it('rejects an action or mode value the catalogue does not list', () => {
    const errors = errorsOf({
      sendMessage: 'maybe',
      'listUsers.mode': 'everyone',
      editMessage: ['allow'],
      deleteMessage: null,
    });
    expect(Object.keys(errors).sort()).toEqual([
      'deleteMessage',
      'editMessage',
      'listUsers.mode',
      'sendMessage',
    ]);
    expect(errors.sendMessage).toContain('allow, deny');
    expect(errors['listUsers.mode']).toContain('all, friends');
  });

  it('reports every problem at once, keyed by permission', () => {
    const errors = errorsOf({
      sendMessage: 'allow',
      'sendMessage.allowedMessageTypes': ['text', 'hologram'],
      'joinGroup.allowedGroupTypes': 'public',
      'sendMessage.allowedMimeTypes': ['png'],
    });
    expect(Object.keys(errors).sort()).toEqual([
      'joinGroup.allowedGroupTypes',
      'sendMessage.allowedMessageTypes',
      'sendMessage.allowedMimeTypes',
    ]);
    expect(errors['sendMessage.allowedMessageTypes']).toContain('hologram');
    expect(errors['joinGroup.allowedGroupTypes']).toContain('must be a list');
    expect(errors['sendMessage.allowedMimeTypes']).toContain('MIME type');
  });

  it('checks role lists against the role id form, and against the roles when known', () => {
    expect(errorsOf({ 'listUsers.allowedRoles': ['Premium'] })['listUsers.allowedRoles']).toContain(
      'not a role id',
    );
    expect(validatePermissions({ 'listUsers.allowedRoles': ['ghost'] }).ok).toBe(true);
    const errors = errorsOf({ 'listUsers.allowedRoles': ['ghost', 'premium'] }, ROLE_IDS);
    expect(errors['listUsers.allowedRoles']).toContain('ghost is not a role');
    expect(errors['listUsers.allowedRoles']).not.toContain('premium');
  });

  it('rejects a list naming an item twice', () => {
    const errors = errorsOf({ 'sendMessage.allowedMessageTypes': ['text', 'text'] });
    expect(errors['sendMessage.allowedMessageTypes']).toContain('twice');
  });

  it('rejects free-list items with spaces or commas, and empty ones', () => {
    for (const item of ['two words', 'a,b', '', 'x'.repeat(101)]) {
      expect(errorsOf({ 'sendMessage.allowedCustomTypes': [item] })).toHaveProperty(
        'sendMessage.allowedCustomTypes',
      );
    }
  });

  it('passes unknown keys through when their value is permission-shaped', () => {
    const input = { flagMessage: 'allow', 'flagMessage.allowedRoles': ['x'], pinMessage: null };
    expect(validatePermissions(input)).toEqual({ ok: true, permissions: input });
    const errors = errorsOf({ flagMessage: 3, pinMessage: ['a', 1], other: { a: 1 } });
    expect(Object.keys(errors).sort()).toEqual(['flagMessage', 'other', 'pinMessage']);
  });
});

describe('agreement with the sandbox service', () => {
  // Whatever the client lets through must not come back as a 400 from the service: the
  // client may be stricter (duplicates, MIME form), never looser, on catalogue keys.
  const samples: Record<string, unknown>[] = [
    { sendMessage: 'allow' },
    { sendMessage: 'Allow' },
    { 'listUsers.mode': 'friends' },
    { 'listUsers.mode': 'friendsOnly' },
    { 'sendMessage.allowedMessageTypes': ['text', 'file'] },
    { 'sendMessage.allowedMessageTypes': ['sticker'] },
    { 'sendMessage.allowedReceiverTypes': ['group'] },
    { 'listUsers.allowedRoles': ['premium'] },
    { 'listUsers.allowedRoles': ['ghost'] },
    { 'listUsers.allowedRoles': null },
    { 'sendMessage.allowedMimeTypes': ['image/png'] },
    { 'sendMessage.allowedMimeTypes': [' '] },
    { 'createGroup.allowedGroupTypes': 'public' },
    { 'createGroup.allowedGroupTypes': [] },
    { initiateCall: null },
  ];

  it.each(samples)('agrees on %j', (sample) => {
    const client = validatePermissions(sample, { roleIds: ROLE_IDS }).ok;
    const service = checkPermissionUpdate(sample, new Set(ROLE_IDS)).ok;
    if (client) expect(service).toBe(true);
    if (!service) expect(client).toBe(false);
  });
});
