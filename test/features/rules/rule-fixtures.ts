import type { ModerationRule } from '../../../src/cometchat/moderation-model.ts';

/** A rule of the documented shape; `over` changes what a test is about. */
export function rule(over: Partial<ModerationRule> = {}): ModerationRule {
  return {
    id: 'no-links',
    name: 'No links',
    description: 'Blocks messages with links',
    enabled: true,
    active: true,
    isDefault: false,
    actions: ['blockMessage'],
    conditions: [
      {
        id: 1,
        entity: 'message',
        operand: 'text',
        operator: 'contains',
        value: ['http://', 'https://'],
        message: ['Message contains a link'],
      },
    ],
    filters: [],
    revisionId: 'app1_no-links_1',
    ...over,
  };
}
