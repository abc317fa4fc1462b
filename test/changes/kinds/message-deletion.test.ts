import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { attemptOf, editRefusal } from '../../../src/access/edit-refusal.ts';
import { approvalMessage } from '../../../src/changes/approval-view.ts';
import {
  changeOf,
  decodeChange,
  encodeChange,
  type MessageDeletionChange,
  subjectOf,
} from '../../../src/changes/change.ts';
import { type ChangeClient, kindOf, type Reads } from '../../../src/changes/kinds/index.ts';
import { NO_UNDELETE } from '../../../src/changes/kinds/message-deletion.ts';
import { revertOf } from '../../../src/changes/revert.ts';
import { revertButton } from '../../../src/changes/revert-view.ts';
import { messageDeletionOf, messageDeletionReview } from '../../../src/changes/review.ts';
import type { ChatMessage } from '../../../src/cometchat/account-model.ts';
import { CometChatError } from '../../../src/cometchat/errors.ts';
import { ChangeNotTaken } from '../../../src/replies/failure.ts';
import type { AuditRecord } from '../../../src/store/store.ts';
import { ChangeSubjectSchema } from '../../../src/store/stored-records.ts';

function message(id: string, over: Partial<ChatMessage> = {}): ChatMessage {
  return {
    id,
    conversationId: 'ana_user_bob',
    sender: 'ana',
    receiverType: 'user',
    receiver: 'bob',
    category: 'message',
    type: 'text',
    sentAt: 1_700_000_000,
    text: 'a secret text',
    attachments: 0,
    ...over,
  };
}

function deletion(permanent: boolean, ids = ['101', '102'], deleted: string[] = []) {
  const asked = {
    sender: 'ana',
    permanent,
    messages: ids.map((id) => ({ id, deleted: deleted.includes(id) })),
  };
  return messageDeletionOf('default', asked, 'V123');
}

/** A client holding `messages` (by id): each DELETE recorded, soft ones marked deleted. */
function fakeClient(messages: ChatMessage[], failOn?: string) {
  const held = new Map(messages.map((m) => [m.id, m]));
  const sent: string[] = [];
  const notFound = (id: string) =>
    new CometChatError({ kind: 'not_found', ref: 'r', operation: 'getMessage', detail: id });
  const client = {
    getMessage: async (id: string) => {
      const found = held.get(id);
      if (!found) throw notFound(id);
      return found;
    },
    deleteMessage: async (id: string, { permanent }: { permanent: boolean }) => {
      if (id === failOn) {
        throw new CometChatError({ kind: 'unavailable', ref: 'r', operation: 'deleteMessage' });
      }
      sent.push(`${id} ${permanent ? 'permanent' : 'soft'}`);
      const found = held.get(id);
      if (permanent) held.delete(id);
      else if (found) held.set(id, { ...found, deletedAt: 1_700_000_100 });
    },
  };
  return { sent, client };
}

const reads = (client: ReturnType<typeof fakeClient>['client']) =>
  ({
    store: { getKnownPermissions: async () => undefined },
    app: { name: 'default', cometchat: client },
  }) as unknown as Reads;

describe('a deletion of messages, as a kind of change', () => {
  it('is read back from Slack and from records as it was written, ids and no text', () => {
    for (const change of [deletion(false), deletion(true, ['101'], ['101'])]) {
      expect(decodeChange(encodeChange(change))).toEqual(change);
      const subject = subjectOf(change);
      expect(ChangeSubjectSchema.parse(subject)).toEqual(subject);
      const changes = change.changes.map((c) => ({ ...c, before: c.before ?? null }));
      expect(changeOf({ id: change.id, role: '', subject, changes })).toEqual(change);
      expect(encodeChange(change)).not.toContain('secret');
    }
    expect(deletion(false).changes).toEqual([
      { key: '101', before: 'sent', after: 'deleted', explicit: false },
      { key: '102', before: 'sent', after: 'deleted', explicit: false },
    ]);
  });

  it('is refused when its keys do not delete the way its subject says', () => {
    const soft = deletion(false);
    const permanentKeys = { ...soft, changes: deletion(true).changes };
    expect(decodeChange(encodeChange(permanentKeys))).toBeUndefined();
    // A soft delete of a message deleted already is not one the app makes.
    const again = { ...soft, changes: [{ ...soft.changes[0], before: 'deleted' }] };
    expect(decodeChange(encodeChange(again as MessageDeletionChange))).toBeUndefined();
    const notAnId = { ...soft, changes: [{ ...soft.changes[0], key: 'abc' }] };
    expect(decodeChange(encodeChange(notAnId as MessageDeletionChange))).toBeUndefined();
    const twice = { ...soft, changes: [soft.changes[0], soft.changes[0]] };
    expect(decodeChange(encodeChange(twice as MessageDeletionChange))).toBeUndefined();
  });

  it('gives the same review the same id, a soft and a permanent deletion different ones', () => {
    expect(deletion(false).id).toBe(deletion(false).id);
    expect(deletion(true).id).not.toBe(deletion(false).id);
  });

  it('sends one DELETE per message, soft unless permanent', async () => {
    const soft = fakeClient([message('101'), message('102')]);
    const sent = await kindOf(deletion(false)).send(soft.client as unknown as ChangeClient);
    expect(soft.sent).toEqual(['101 soft', '102 soft']);
    expect(Object.keys(sent.results)).toEqual(['101', '102']);
    const permanent = fakeClient([message('101'), message('102')]);
    await kindOf(deletion(true)).send(permanent.client as unknown as ChangeClient);
    expect(permanent.sent).toEqual(['101 permanent', '102 permanent']);
  });

  it('says which were deleted when CometChat fails part-way, as an unknown outcome', async () => {
    const { client, sent } = fakeClient([message('101'), message('102')], '102');
    const failure = await kindOf(deletion(false))
      .send(client as unknown as ChangeClient)
      .catch((error: unknown) => error);
    expect(sent).toEqual(['101 soft']);
    expect(failure).toBeInstanceOf(ChangeNotTaken);
    expect(failure).toMatchObject({ partial: true });
    expect(String((failure as ChangeNotTaken).sentence)).toContain('`101`');
    // The first one failing is CometChat's own failure: nothing took.
    const first = fakeClient([message('101')], '101');
    const error = await kindOf(deletion(false, ['101']))
      .send(first.client as unknown as ChangeClient)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CometChatError);
  });

  it('is out of date when a message is gone, deleted already, or not the sender’s', async () => {
    const kind = kindOf(deletion(false));
    const fine = fakeClient([message('101'), message('102')]);
    expect(await kind.sinceReview(reads(fine.client))).toMatchObject({ changed: false });
    const gone = fakeClient([message('101')]);
    const found = await kind.sinceReview(reads(gone.client));
    expect(found).toMatchObject({ changed: true, has: false });
    expect(found.why).toContain('`102` is no longer there');
    const deleted = fakeClient([message('101'), message('102', { deletedAt: 5 })]);
    expect((await kind.sinceReview(reads(deleted.client))).why).toContain('deleted already');
    const other = fakeClient([message('101'), message('102', { sender: 'eve' })]);
    expect((await kind.sinceReview(reads(other.client))).why).toContain('not sent by');
    // Every message deleted already: after an unknown outcome, the change took.
    const all = fakeClient([message('101', { deletedAt: 5 }), message('102', { deletedAt: 5 })]);
    expect(await kind.sinceReview(reads(all.client))).toMatchObject({ changed: true, has: true });
  });

  it('deletes a soft-deleted message permanently; one gone meanwhile is out of date', async () => {
    const kind = kindOf(deletion(true, ['101'], ['101']));
    const soft = fakeClient([message('101', { deletedAt: 5 })]);
    expect(await kind.sinceReview(reads(soft.client))).toMatchObject({ changed: false });
    const gone = fakeClient([]);
    expect(await kind.sinceReview(reads(gone.client))).toMatchObject({ changed: true, has: true });
  });

  it('asks an editor who moderates too for a permanent deletion, an editor for a soft one', async () => {
    expect(attemptOf(deletion(true), 'confirm')).toBe('delete permanently');
    expect(attemptOf(deletion(false), 'confirm')).toBe('confirm');
    const log = pino({ level: 'silent' });
    const access = (editor: boolean, moderator: boolean) => ({
      editRefusal: async () => (editor ? undefined : 'not an editor'),
      moderatorRefusal: async () => (moderator ? undefined : 'not a moderator'),
    });
    const permanently = 'delete permanently' as const;
    expect(await editRefusal(access(true, true), 'U1', log, permanently)).toBeUndefined();
    expect(await editRefusal(access(true, false), 'U1', log, permanently)).toBe('not a moderator');
    expect(await editRefusal(access(false, true), 'U1', log, permanently)).toBe('not an editor');
  });

  it('has no Revert, and says why in the record’s revert and the approval request', () => {
    const change = deletion(false);
    const record = {
      ref: 'ref1',
      at: 1,
      app: 'default',
      teamId: 'T',
      userId: 'U',
      role: '',
      subject: subjectOf(change),
      changes: change.changes.map((c) => ({ ...c, before: c.before ?? null })),
      outcome: 'applied',
    } as unknown as AuditRecord;
    expect(revertButton(JSON.stringify, record)).toBeUndefined();
    const none = revertOf(record, { roles: [], defaults: {} });
    expect(none).toEqual({ kind: 'none', sentence: `${NO_UNDELETE} Nothing was sent.` });
    const request = {
      ...record,
      id: change.id,
      requester: 'U',
      requestedAt: 1,
      status: 'open',
    };
    const posted = JSON.stringify(approvalMessage(request as never));
    expect(posted).toContain('no _Revert_');
    expect(posted).toContain('`101`');
  });

  it('reviews a soft delete as soft, a permanent one named as permanent', () => {
    const where = { write: JSON.stringify, approvalChannel: undefined };
    const soft = JSON.stringify(messageDeletionReview(deletion(false), ['• `101`'], where));
    expect(soft).toContain('A soft delete');
    expect(soft).not.toContain('permanently');
    const permanent = JSON.stringify(messageDeletionReview(deletion(true), ['• `101`'], where));
    expect(permanent).toContain('*permanently*? They cannot be brought back.');
    expect(permanent).toContain('"Delete permanently"');
  });
});
