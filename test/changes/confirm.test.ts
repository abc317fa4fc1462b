import type { Logger } from 'pino';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { Access } from '../../src/access/access.ts';
import { createApps, signedValue, UNSIGNED_REFUSAL } from '../../src/apps/apps.ts';
import { encodeChange, type PermissionsChange } from '../../src/changes/change.ts';
import { createConfirmSubmission } from '../../src/changes/confirm.ts';
import type { ChangeDeps } from '../../src/changes/deps.ts';
import type { CometChatClient } from '../../src/cometchat/client.ts';
import { CometChatError } from '../../src/cometchat/errors.ts';
import { createLogger } from '../../src/log.ts';
import { AlreadyShownError, failureSentence } from '../../src/replies/failure.ts';
import { runInRequest } from '../../src/request-context.ts';
import type { Deliverer } from '../../src/slack/deliver.ts';
import type { SubmitArgs } from '../../src/slack/listener-args.ts';
import type { Views } from '../../src/slack/views.ts';
import { createMemoryStore } from '../../src/store/store.ts';
import { LogCapture } from '../log-capture.ts';

// The review's "Apply" (the road's confirm listener) without Slack: what it refuses, and how
// an outcome or a failure reaches the person when the modal can or cannot show it.

/** Runs `work` as the request `ref0000003`, logged by `log`. */
const inRequest = <T>(log: Logger, work: () => Promise<T>) =>
  runInRequest({ ref: 'ref0000003', log, receivedAt: Date.now() }, work);

const allowAll: Access = {
  canEdit: async () => true,
  canView: async () => true,
  editRefusal: async () => undefined,
  viewRefusal: async () => undefined,
  moderatorRefusal: async () => undefined,
  limitsViewers: false,
};

/** One app whose editors are decided by `access`. */
const appsWith = (access: Access, cometchat = {} as CometChatClient) =>
  createApps([{ name: 'default', appId: 'a', region: 'us', apiKey: 'k', cometchat, access }]);

/** Metadata as the app writes it: the JSON `encoded` gives, signed for the one app. */
function signed(encoded: string): string {
  const [app] = appsWith(allowAll).all;
  if (!app) throw new Error('no app');
  return signedValue(app, JSON.parse(encoded) as Record<string, unknown>);
}

const roleChange = { key: 'role', before: 'default', after: 'vip', explicit: false };
const statusChange = { key: 'status', before: 'active', after: 'deactivated', explicit: false };

/** A user change's metadata as the confirmation carries it, with `fields` forged into it. */
const forged = (fields: Record<string, unknown>) =>
  JSON.stringify({
    role: 'default',
    id: 'c'.repeat(24),
    subject: { kind: 'user', uid: 'cometchat-uid-4' },
    changes: [roleChange],
    ...fields,
  });

/** A CometChat client whose every write is a spy that answers as if it took. */
function writes() {
  return {
    setRolePermissions: vi.fn(async () => ({ permissions: {}, results: {} })),
    setUserRole: vi.fn(async (uid: string, role: string) => ({ uid, role })),
    deactivateUsers: vi.fn(async (uids: string[]) => uids),
    reactivateUsers: vi.fn(async (uids: string[]) => uids),
    getUser: vi.fn(async (uid: string) => ({ uid, name: uid, role: 'default', status: 'offline' })),
  };
}

const sent = (client: ReturnType<typeof writes>) =>
  [client.setUserRole, client.deactivateUsers, client.reactivateUsers, client.setRolePermissions]
    .map((spy) => spy.mock.calls.length)
    .reduce((a, b) => a + b, 0);

describe('the Apply listener, given a forged change to a user', () => {
  it('refuses it with the one sentence, and sends, claims and audits nothing', async () => {
    const client = writes();
    const record = vi.fn(async () => ({ stored: true }));
    const deps: ChangeDeps = {
      apps: createApps([
        {
          name: 'default',
          appId: 'a',
          region: 'us',
          apiKey: 'k',
          cometchat: client as unknown as CometChatClient,
          access: allowAll,
        },
      ]),
      deliver: async () => 'dm',
      views: { update: vi.fn(), open: vi.fn(), push: vi.fn(), publish: vi.fn() },
      failureSentence: (error) => String(error),
      store: createMemoryStore(),
      audit: { record },
      now: () => 1_000,
    };
    const [app] = deps.apps.all;
    if (!app) throw new Error('no app');
    /** The metadata signed as the app signs it: only its content is forged. */
    const signed = (json: string) => signedValue(app, JSON.parse(json) as Record<string, unknown>);
    const submit = async (metadata: string) => {
      const acks: unknown[] = [];
      const args = {
        ack: async (response: unknown) => {
          acks.push(response);
        },
        view: { id: 'V9', private_metadata: metadata, state: { values: {} } },
        body: { type: 'view_submission', user: { id: 'U0EDITOR' }, team: { id: 'T1' } },
      } as unknown as SubmitArgs;
      await inRequest(pino({ level: 'silent' }), () => createConfirmSubmission(deps)(args));
      return JSON.stringify(acks);
    };
    for (const metadata of [
      forged({ changes: [roleChange, statusChange] }),
      forged({ changes: [{ ...roleChange, key: 'name' }] }),
      forged({ changes: [{ ...statusChange, after: 'suspended' }] }),
      forged({ changes: [{ ...roleChange, after: 'Not A Role' }] }),
      forged({ subject: { kind: 'user', uid: 'a b' } }),
    ]) {
      expect(await submit(signed(metadata))).toContain(UNSIGNED_REFUSAL);
    }
    // The change as the review writes it, but not signed: refused the same.
    expect(await submit(forged({}))).toContain(UNSIGNED_REFUSAL);
    expect(sent(client)).toBe(0);
    expect(client.getUser).not.toHaveBeenCalled();
    expect(record).not.toHaveBeenCalled();
    // The same listener, given the change as the review writes it, sends it.
    await submit(signed(forged({})));
    expect(client.setUserRole).toHaveBeenCalledTimes(1);
    expect(record).toHaveBeenCalledTimes(1);
  });
});

describe('the Apply listener', () => {
  const meta: PermissionsChange = {
    kind: 'permissions',
    role: 'default',
    id: 'b'.repeat(24),
    changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
  };

  function setup(options: {
    updateFails: boolean;
    cometchatFails: boolean;
    auditStored?: boolean;
  }) {
    const updates: unknown[] = [];
    const delivered: unknown[] = [];
    const fail = async () => {
      throw Object.assign(new Error('x'), { data: { error: 'not_found' } });
    };
    const views: Views = {
      async update(args) {
        updates.push(args);
        if (options.updateFails) await fail();
      },
      open: fail,
      push: fail,
      publish: fail,
    };
    const cometchat = {
      async setRolePermissions() {
        if (options.cometchatFails) {
          throw new CometChatError({
            kind: 'unavailable',
            ref: 'r',
            operation: 'setRolePermissions',
          });
        }
        return { permissions: { sendMessage: 'deny' }, results: {} };
      },
    } as unknown as CometChatClient;
    const deliver: Deliverer = async (_destination, message) => {
      delivered.push(message);
      return 'dm';
    };
    const logs = new LogCapture();
    const deps: ChangeDeps = {
      apps: appsWith(allowAll, cometchat),
      deliver,
      views,
      failureSentence: (error) => failureSentence(error, { budgetSeconds: 8, secrets: [] }),
      store: createMemoryStore(),
      audit: { record: async () => ({ stored: options.auditStored ?? true }) },
      now: () => 1_000,
    };
    const acks: unknown[] = [];
    const args = {
      ack: async (response: unknown) => {
        acks.push(response);
      },
      view: { id: 'V9', private_metadata: signed(encodeChange(meta)), state: { values: {} } },
      body: { type: 'view_submission', user: { id: 'U0EDITOR' }, team: { id: 'T1' } },
    } as unknown as SubmitArgs;
    const log = createLogger({ level: 'debug', destination: logs });
    const run = () => inRequest(log, () => createConfirmSubmission(deps)(args));
    return { run, updates, delivered, acks };
  }

  it('marks a failure as shown once the modal shows it', async () => {
    const { run, updates } = setup({ updateFails: false, cometchatFails: true });
    const error = await run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AlreadyShownError);
    expect((error as AlreadyShownError).cause).toBeInstanceOf(CometChatError);
    expect(JSON.stringify(updates)).toContain('ref0000003');
  });

  it('leaves a failure unshown when the modal cannot show it, for the error handler to deliver', async () => {
    const { run, acks } = setup({ updateFails: true, cometchatFails: true });
    const error = await run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CometChatError);
    expect(error).not.toBeInstanceOf(AlreadyShownError);
    expect(acks).toHaveLength(1);
  });

  it('delivers an applied change as a message when the modal cannot show it', async () => {
    const { run, delivered } = setup({ updateFails: true, cometchatFails: false });
    await run();
    expect(JSON.stringify(delivered)).toContain('Applied 1 change to');
    expect(JSON.stringify(delivered)).not.toContain('audit record');
  });

  it('says in that message too when the audit record was not stored', async () => {
    const { run, delivered } = setup({
      updateFails: true,
      cometchatFails: false,
      auditStored: false,
    });
    await run();
    expect(JSON.stringify(delivered)).toContain('its audit record could not be stored');
  });
});
