import { describe, expect, it } from 'vitest';
import {
  groupFailures,
  moderationDeliveryId,
  moderationFacts,
} from '../../../src/features/alerts/moderation-event.ts';
import {
  MODERATION_FIXTURE_TEXT,
  MODERATION_FIXTURE_TRIGGERS,
  moderationData,
} from '../../fixtures/moderation-webhooks/index.ts';

describe('moderation webhooks read into facts', () => {
  it.each(MODERATION_FIXTURE_TRIGGERS)('reads the published %s without its text', (trigger) => {
    const facts = moderationFacts(trigger, moderationData(trigger));
    expect(facts).toBeDefined();
    expect(JSON.stringify(facts)).not.toContain(MODERATION_FIXTURE_TEXT);
  });

  it('names the sender, the conversation and the rule of a blocked message', () => {
    const facts = moderationFacts(
      'moderation_engine_blocked',
      moderationData('moderation_engine_blocked'),
    );
    expect(facts).toMatchObject({
      trigger: 'moderation_engine_blocked',
      message: {
        id: '390079',
        sender: 'cometchat-uid-1',
        receiverType: 'user',
        receiver: 'cometchat-uid-3',
        conversationId: 'cometchat-uid-1_user_cometchat-uid-3',
      },
      rules: [{ id: 'profanity-filter', name: 'Profanity filter', actions: ['blockMessage'] }],
    });
  });

  it("takes the rule from the message's own moderation when the list is absent", () => {
    const data = moderationData('moderation_engine_blocked');
    delete data.moderation;
    const facts = moderationFacts('moderation_engine_blocked', data);
    expect(facts?.trigger === 'moderation_engine_blocked' && facts.rules.map((r) => r.id)).toEqual([
      'profanity-filter',
    ]);
  });

  it('accepts a numeric message id and a rule time with a fraction', () => {
    const data = moderationData('moderation_manual_approved');
    Object.assign(data.message as object, { id: 390081 });
    const facts = moderationFacts('moderation_manual_approved', data);
    expect(facts?.message.id).toBe('390081');
  });

  it('refuses data of another shape', () => {
    expect(moderationFacts('moderation_engine_blocked', { message: { id: '1' } })).toBeUndefined();
    expect(moderationFacts('moderation_engine_failed', { failures: [] })).toBeUndefined();
    expect(moderationFacts('moderation_manual_approved', {})).toBeUndefined();
  });

  it('groups failures by engine, rule and category, and never reads their messages or bodies', () => {
    const facts = moderationFacts(
      'moderation_engine_failed',
      moderationData('moderation_engine_failed'),
    );
    expect(facts).toMatchObject({
      trigger: 'moderation_engine_failed',
      outcome: 'approved',
      message: { id: '390082', sender: 'cometchat-uid-4' },
      groups: [
        {
          engine: 'openai',
          setting: 'approve-message',
          rule: { id: 'ai-toxicity' },
          category: 'timeout',
          count: 2,
          timeoutMs: 3000,
        },
        {
          engine: 'custom_api',
          setting: 'drop-message',
          rule: { id: 'own-classifier' },
          category: 'http_5xx',
          count: 1,
          httpStatus: 502,
        },
      ],
    });
  });

  it('keeps a group apart for each category of one engine and rule', () => {
    const context = { engine: 'openai', setting: 'drop-message', rule: { id: 'r1' } };
    const groups = groupFailures([
      { category: 'timeout', context },
      { category: 'connection_error', context },
      { category: 'timeout', context: { ...context, rule: { id: 'r2' } } },
      { category: 'timeout', context },
    ]);
    expect(groups.map((g) => [g.category, g.rule?.id, g.count])).toEqual([
      ['timeout', 'r1', 2],
      ['connection_error', 'r1', 1],
      ['timeout', 'r2', 1],
    ]);
  });
});

describe('moderation delivery ids', () => {
  const blocked = () => moderationData('moderation_engine_blocked');
  const idOf = (data: Record<string, unknown>, app = 'default') => {
    const facts = moderationFacts('moderation_engine_blocked', data);
    if (!facts) throw new Error('not read');
    return moderationDeliveryId(app, 'moderation_engine_blocked', facts);
  };

  it('is the same for the same message however it is written', () => {
    const again = JSON.parse(JSON.stringify(blocked(), null, 2));
    Object.assign(again, { extra: 'a field a proxy added' });
    expect(idOf(again)).toBe(idOf(blocked()));
  });

  it('differs for another message, another app, or the message edited', () => {
    const other = blocked();
    Object.assign(other.message as object, { id: '390999' });
    const edited = blocked();
    Object.assign(edited.message as object, { editedAt: 1757954000 });
    const ids = new Set([idOf(blocked()), idOf(other), idOf(blocked(), 'staging'), idOf(edited)]);
    expect(ids.size).toBe(4);
  });

  it('tells two failures of one message apart by when the engine gave up', () => {
    const failed = moderationData('moderation_engine_failed');
    const later = { ...failed, completedAt: 1757953900 };
    const id = (data: unknown) => {
      const facts = moderationFacts('moderation_engine_failed', data);
      if (!facts) throw new Error('not read');
      return moderationDeliveryId('default', 'moderation_engine_failed', facts);
    };
    expect(id(later)).not.toBe(id(failed));
    expect(id(moderationData('moderation_engine_failed'))).toBe(id(failed));
  });
});
