import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { AckClock, ackClockIn, httpAckClocks, socketAckClocks } from '../../src/slack/ack-clock.ts';

type Seen = [kind: string, name: string, seconds: number];

describe('AckClock', () => {
  it('reports the wait once, when both the name and the answer are known, in either order', () => {
    const seen: Seen[] = [];
    const named = new AckClock(1_000, (...args) => seen.push(args));
    named.name('command', 'roles');
    expect(seen).toEqual([]);
    named.acked(1_250);
    named.acked(9_000);
    named.name('command', 'other');
    // Bolt acknowledges an event before any middleware names it.
    const event = new AckClock(2_000, (...args) => seen.push(args));
    event.acked(2_004);
    event.name('event', 'app_home_opened');
    expect(seen).toEqual([
      ['command', 'roles', 0.25],
      ['event', 'app_home_opened', 0.004],
    ]);
  });

  it('reports nothing for a request the app never read', () => {
    const seen: Seen[] = [];
    new AckClock(0, (...args) => seen.push(args)).acked(10);
    expect(seen).toEqual([]);
  });
});

describe('socketAckClocks', () => {
  it("times an envelope from its arrival to the reply sent with the envelope's id", () => {
    const client = new EventEmitter();
    const seen: Seen[] = [];
    let now = 100;
    const clocks = socketAckClocks(
      client,
      (...args) => seen.push(args),
      () => now,
    );
    const context = clocks.properties({ envelope_id: 'env-1' });
    ackClockIn(context)?.name('action', 'approve_change');
    now = 1_600;
    client.emit('outgoing_message', { envelope_id: 'env-2', payload: {} });
    client.emit('outgoing_message', { envelope_id: 'env-1', payload: {} });
    client.emit('outgoing_message', { envelope_id: 'env-1', payload: {} });
    expect(seen).toEqual([['action', 'approve_change', 1.5]]);
    expect(ackClockIn({ ackClock: 'forged' })).toBeUndefined();
  });
});

describe('httpAckClocks', () => {
  /** A request and its response as the clocks read them, on a clock the test moves. */
  function exchange(name: string) {
    const seen: Seen[] = [];
    const clock = { now: 0 };
    const clocks = httpAckClocks(
      (...args) => seen.push(args),
      () => clock.now,
    );
    const req = new EventEmitter();
    const res = Object.assign(new EventEmitter(), { headersSent: false });
    clocks.start(req, res);
    ackClockIn(clocks.properties(req))?.name('command', name);
    return { seen, clock, clocks, res };
  }

  it('times a request from its arrival to its response sent, once', () => {
    const { seen, clock, res } = exchange('roles');
    clock.now = 40;
    res.emit('finish');
    clock.now = 45;
    res.emit('close');
    expect(seen).toEqual([['command', 'roles', 0.04]]);
  });

  it('counts a request Slack gave up on (closed before any answer) until it went', () => {
    const { seen, clock, clocks, res } = exchange('call');
    clock.now = 3_001;
    res.emit('close');
    clock.now = 5_000;
    res.emit('finish');
    expect(seen).toEqual([['command', 'call', 3.001]]);
    // A request that reached no clock (another path) has none.
    expect(clocks.properties(new EventEmitter())).toEqual({});
  });
});

describe('answered', () => {
  it('over HTTP, from the moment the head is written, before the response has gone', () => {
    const clocks = httpAckClocks(() => {});
    const req = new EventEmitter();
    const res = Object.assign(new EventEmitter(), { headersSent: false });
    clocks.start(req, res);
    const clock = ackClockIn(clocks.properties(req));
    expect(clock?.answered()).toBe(false);
    res.headersSent = true;
    expect(clock?.answered()).toBe(true);
  });

  it('in Socket Mode, once the reply to its envelope is handed to the socket', () => {
    const client = new EventEmitter();
    const clock = ackClockIn(socketAckClocks(client, () => {}).properties({ envelope_id: 'e' }));
    client.emit('outgoing_message', { envelope_id: 'other' });
    expect(clock?.answered()).toBe(false);
    client.emit('outgoing_message', { envelope_id: 'e' });
    expect(clock?.answered()).toBe(true);
  });
});
