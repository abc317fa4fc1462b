import { constants } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { gcRound } from '../../bench/gc-pauses.ts';

const MINOR = constants.NODE_PERFORMANCE_GC_MINOR;
const MAJOR = constants.NODE_PERFORMANCE_GC_MAJOR;

describe('gcRound', () => {
  const answers = [
    { sentAt: 0, ackMs: 1 },
    { sentAt: 5, ackMs: 1 },
    // The two slowest: one waited on the mark-compact, one on nothing the probe saw.
    { sentAt: 10, ackMs: 9 },
    { sentAt: 30, ackMs: 8 },
  ];
  const pauses = [
    { at: 2, ms: 2, kind: MINOR },
    { at: 12, ms: 6, kind: MAJOR },
    { at: 50, ms: 3, kind: MINOR },
  ];

  it('sums the pauses, counts them by kind and finds the longest', () => {
    const round = gcRound(pauses, answers, 8);
    expect(round).toMatchObject({ pauseMs: 11, scavenges: 2, markCompacts: 1, longestMs: 6 });
  });

  it('counts the answers at or above the p99 that were in flight during a pause', () => {
    expect(gcRound(pauses, answers, 8)).toMatchObject({ tail: 2, tailInPause: 1 });
  });

  it('does not count a pause that ended before an answer was sent or began after it', () => {
    const round = gcRound(
      [
        { at: 28, ms: 2, kind: MINOR },
        { at: 38, ms: 1, kind: MINOR },
      ],
      answers,
      8,
    );
    expect(round.tailInPause).toBe(0);
  });

  it('reports nothing in a pause when there were none', () => {
    expect(gcRound([], answers, 8)).toEqual({
      pauseMs: 0,
      scavenges: 0,
      markCompacts: 0,
      longestMs: 0,
      tail: 2,
      tailInPause: 0,
    });
  });
});
