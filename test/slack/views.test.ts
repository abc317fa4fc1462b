import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { View } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { openView, publishView, pushView, updateView } from '../../src/slack/views.ts';

const view: View = {
  type: 'modal',
  title: { type: 'plain_text', text: 'Edit permissions' },
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Role:* `default`' } }],
};

function recordingClient() {
  const calls: { method: string; args: Record<string, unknown> }[] = [];
  return {
    calls,
    client: {
      apiCall: async (method: string, args: Record<string, unknown> = {}) => {
        calls.push({ method, args });
        return { ok: true, view: { id: 'V1', hash: 'h1' } };
      },
    },
  };
}

describe('the views calls', () => {
  it('send the view as its JSON text, every other argument as given, to the named method', async () => {
    const { calls, client } = recordingClient();
    const opened = await openView(client, { trigger_id: 'T1', view });
    await pushView(client, { trigger_id: 'T2', view });
    await updateView(client, { view_id: 'V1', hash: 'h1', view });
    await publishView(client, { user_id: 'U1', view });
    expect(opened.view?.id).toBe('V1');
    expect(calls.map((c) => c.method)).toEqual([
      'views.open',
      'views.push',
      'views.update',
      'views.publish',
    ]);
    expect(calls[0]?.args).toEqual({ trigger_id: 'T1', view: JSON.stringify(view) });
    expect(calls[2]?.args).toEqual({ view_id: 'V1', hash: 'h1', view: JSON.stringify(view) });
    expect(calls[3]?.args).toEqual({ user_id: 'U1', view: JSON.stringify(view) });
    for (const call of calls) expect(JSON.parse(String(call.args.view))).toEqual(view);
  });
});

describe('views in the app', () => {
  it('go to Slack through src/slack/views.ts only (a direct client.views call walks the view again)', () => {
    const src = fileURLToPath(new URL('../../src/', import.meta.url));
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    );
    expect(files.length).toBeGreaterThan(20);
    const direct = files
      .filter((file) => relative('slack', file) !== 'views.ts')
      .filter((file) =>
        /\.views\.(open|update|push|publish)\(/.test(readFileSync(join(src, file), 'utf8')),
      );
    expect(direct).toEqual([]);
  });
});
