import { describe, expect, it } from 'vitest';
import { signSlackRequest } from '../../offline/slack-standin/driver.ts';
import { useHarness, withoutHolderCounts } from './support.ts';

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

describe('request signatures over HTTP', () => {
  const h = useHarness();

  /** Nothing a refused request could have caused: no CometChat call, no reply, no Slack call. */
  function expectNothingHappened(): void {
    expect(h.sandbox.requests).toEqual([]);
    expect(h.slack.responses).toEqual([]);
    expect(h.slack.calls.filter((c) => c.method !== 'auth.test')).toEqual([]);
  }

  it('a correctly signed command is accepted (the baseline for the rest)', async () => {
    const sent = await h.driver.signedPost(form({ ...h.driver.commandFields('roles') }));
    expect(sent.status).toBe(200);
    await h.slack.nextResponse(0);
    expect(withoutHolderCounts(h)).toHaveLength(1);
  });

  it('a signature made with another secret is refused', async () => {
    const body = form({ ...h.driver.commandFields('roles') });
    const sent = await h.driver.raw(body, signSlackRequest('not-the-signing-secret', body));
    expect(sent.status).toBe(401);
    expectNothingHappened();
  });

  it('a signature of another body is refused', async () => {
    const signed = form({ ...h.driver.commandFields('help') });
    const sent = await h.driver.raw(
      form({ ...h.driver.commandFields('roles') }),
      signSlackRequest(h.config.slack.signingSecret ?? '', signed),
    );
    expect(sent.status).toBe(401);
    expectNothingHappened();
  });

  it('a correctly signed request older than five minutes is refused (replay)', async () => {
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 6 * 60;
    const sent = await h.driver.signedPost(
      form({ ...h.driver.commandFields('roles') }),
      sixMinutesAgo,
    );
    expect(sent.status).toBe(401);
    expectNothingHappened();
  });

  it('an unsigned request is refused', async () => {
    const sent = await h.driver.raw(form({ ...h.driver.commandFields('roles') }), {});
    expect(sent.status).toBe(401);
    expectNothingHappened();
  });

  it('a malformed signature header is refused', async () => {
    const body = form({ ...h.driver.commandFields('roles') });
    const good = signSlackRequest(h.config.slack.signingSecret ?? '', body);
    const sent = await h.driver.raw(body, {
      ...good,
      'x-slack-signature': good['x-slack-signature'].replace('v0=', 'v1='),
    });
    expect(sent.status).toBe(401);
    expectNothingHappened();
  });

  it('an interaction with a bad signature is refused', async () => {
    const payload = h.driver.blockAction({ actionId: 'roles_page_next', value: '{"page":2}' });
    const body = form({ payload: JSON.stringify(payload) });
    const sent = await h.driver.raw(body, signSlackRequest('not-the-signing-secret', body));
    expect(sent.status).toBe(401);
    expectNothingHappened();
  });

  it('a captured request re-dated to now is refused: the timestamp is part of what is signed', async () => {
    const body = form({ ...h.driver.commandFields('roles') });
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 6 * 60;
    const captured = signSlackRequest(h.config.slack.signingSecret ?? '', body, sixMinutesAgo);
    const sent = await h.driver.raw(body, {
      ...captured,
      'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)),
    });
    expect(sent.status).toBe(401);
    expectNothingHappened();
  });

  it('a tampered body under a valid but old signature is refused', async () => {
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 6 * 60;
    const captured = signSlackRequest(
      h.config.slack.signingSecret ?? '',
      form({ ...h.driver.commandFields('help') }),
      sixMinutesAgo,
    );
    const sent = await h.driver.raw(form({ ...h.driver.commandFields('roles') }), captured);
    expect(sent.status).toBe(401);
    expectNothingHappened();
  });

  it('a correctly signed request dated more than five minutes ahead is refused', async () => {
    const sixMinutesAhead = Math.floor(Date.now() / 1000) + 6 * 60;
    const sent = await h.driver.signedPost(
      form({ ...h.driver.commandFields('roles') }),
      sixMinutesAhead,
    );
    expect(sent.status).toBe(401);
    expectNothingHappened();
    expect(h.logs.text()).toContain('request refused: dated in the future');
  });

  it('a clock a minute apart either way is tolerated', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const [i, timestamp] of [now - 60, now + 60].entries()) {
      const sent = await h.driver.signedPost(
        form({ ...h.driver.commandFields('help') }),
        timestamp,
      );
      expect(sent.status).toBe(200);
      await h.slack.nextResponse(i);
    }
  });

  it('a timestamp that is not a number is refused', async () => {
    const body = form({ ...h.driver.commandFields('roles') });
    const signed = signSlackRequest(h.config.slack.signingSecret ?? '', body);
    const sent = await h.driver.raw(body, { ...signed, 'x-slack-request-timestamp': 'soon' });
    expect(sent.status).toBe(401);
    expectNothingHappened();
  });

  it('GET /healthz answers 200 without a signature', async () => {
    const response = await fetch(`http://127.0.0.1:${h.app.port}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expectNothingHappened();
  });
});
