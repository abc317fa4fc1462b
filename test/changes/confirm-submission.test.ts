import { describe, expect, it } from 'vitest';
import type { PermissionsChange } from '../../src/changes/change.ts';
import { submittedView } from '../../src/changes/outcome.ts';
import { messageView, REASON_BLOCK, REASON_INPUT, reasonOf } from '../../src/changes/views.ts';

// What the confirmation's listener decides before it picks a flow: the view Slack gets at once,
// and the reason a request for approval gives.

const meta: PermissionsChange = {
  kind: 'permissions',
  id: 'a'.repeat(24),
  role: 'default',
  changes: [{ key: 'sendMessage', before: 'allow', after: 'deny', explicit: false }],
};

describe('submittedView', () => {
  it('says the request is being posted when the app needs approval', () => {
    expect(submittedView(meta, 'prod', true)).toEqual(
      messageView('Request approval', ':hourglass_flowing_sand: Posting the request…', false),
    );
  });

  it('says what is being applied, to which role of which app, otherwise', () => {
    expect(submittedView(meta, 'prod', false)).toEqual(
      messageView(
        'Applying',
        ':hourglass_flowing_sand: Applying 1 change to `default` in *prod*…',
        false,
      ),
    );
    const two = { ...meta, changes: [...meta.changes, ...meta.changes] };
    expect(JSON.stringify(submittedView(two, undefined, false))).toContain(
      'Applying 2 changes to `default`…',
    );
  });
});

describe('reasonOf', () => {
  const typed = (value: string | null) => ({
    [REASON_BLOCK]: { [REASON_INPUT]: { type: 'plain_text_input' as const, value } },
  });

  it('is the typed reason, trimmed', () => {
    expect(reasonOf(typed('  ticket 42 \n'))).toBe('ticket 42');
  });

  it('is undefined when none was given, blank or missing', () => {
    expect(reasonOf(typed('   '))).toBeUndefined();
    expect(reasonOf(typed(null))).toBeUndefined();
    expect(reasonOf({})).toBeUndefined();
  });
});
