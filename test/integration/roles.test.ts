import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, textOf } from './harness.ts';

describe('/cometchat roles through the real app', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    h.checkAllPayloads();
    await h.stop();
  });

  it('acknowledges at once and replies with the first page of roles', async () => {
    const sent = await h.driver.command('roles');
    expect(sent.status).toBe(200);
    const reply = await h.slack.nextResponse(0);
    const text = textOf(reply.body);
    expect(text).toContain('CometChat roles');
    expect(text).toContain('default');
    expect(reply.body.response_type).toBe('ephemeral');
    const listCalls = h.sandbox.requests.filter((r) => r.path.startsWith('/v3/roles'));
    expect(listCalls).toHaveLength(1);
    expect(listCalls[0]?.query).toMatchObject({ page: '1', perPage: '10' });
  });
});
