import { afterEach, describe, expect, it, vi } from 'vitest';
import { digestDue } from '../src/features/alerts/digest-rules.ts';
import { dayStart, localDay, offsetMs } from '../src/features/call-filters.ts';
import { createZoneFormats, type MakeFormat } from '../src/zone-formats.ts';

// One Intl.DateTimeFormat per zone and shape, kept: a conversion makes none once its zone's
// formats exist. What memory that saves is measured outside the tests (npm run bench's domain);
// here, what is counted is how many formats are made.

const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Pacific/Auckland', 'UTC'];

/** A factory that makes real formats and counts them. */
function counting(): { make: MakeFormat; made: () => number } {
  let made = 0;
  return {
    make: (locale, options) => {
      made += 1;
      return new Intl.DateTimeFormat(locale, options);
    },
    made: () => made,
  };
}

describe('createZoneFormats', () => {
  it('makes one format per zone and shape, however often it is asked', () => {
    const { make, made } = counting();
    const formats = createZoneFormats({ make });
    for (let i = 0; i < 100_000; i++) {
      const zone = ZONES[i % ZONES.length] ?? 'UTC';
      formats.get(zone, i % 2 === 0 ? 'day' : 'clock');
    }
    expect(made()).toBe(ZONES.length * 2);
    expect(formats.size).toBe(ZONES.length * 2);
    expect(formats.get('Europe/Berlin', 'day')).toBe(formats.get('Europe/Berlin', 'day'));
    expect(formats.get('Europe/Berlin', 'day').format(Date.UTC(2026, 0, 15, 23))).toBe(
      '2026-01-16',
    );
  });

  it('keeps at most `max`, letting the least recently used go', () => {
    const { make, made } = counting();
    const formats = createZoneFormats({ max: 3, make });
    for (const zone of ['UTC', 'Europe/Berlin', 'Asia/Kolkata']) formats.get(zone, 'day');
    formats.get('UTC', 'day');
    formats.get('America/New_York', 'day');
    expect(formats.size).toBe(3);
    expect(made()).toBe(4);
    // UTC was used last but one: kept. Berlin was the least recently used: made again.
    formats.get('UTC', 'day');
    expect(made()).toBe(4);
    formats.get('Europe/Berlin', 'day');
    expect(made()).toBe(5);
  });

  it('throws for a zone Intl does not know, and keeps nothing for it', () => {
    const formats = createZoneFormats();
    expect(() => formats.get('Mars/Olympus_Mons', 'clock')).toThrow(RangeError);
    expect(formats.size).toBe(0);
  });
});

describe('the conversions', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('make no format once their zones have theirs: 100,000 across a handful of zones', () => {
    const made = vi.spyOn(Intl, 'DateTimeFormat');
    const start = Date.UTC(2026, 0, 1);
    const convertAll = (times: number) => {
      for (let i = 0; i < times; i++) {
        const zone = ZONES[i % ZONES.length] ?? 'UTC';
        const ms = start + i * 3_600_000;
        if (i % 2 === 0) localDay(ms, zone);
        else offsetMs(ms, zone);
      }
    };
    convertAll(ZONES.length * 2);
    const first = made.mock.calls.length;
    expect(first).toBe(ZONES.length * 2);
    convertAll(100_000);
    for (const zone of ZONES) {
      dayStart('2026-03-29', zone);
      digestDue({ time: '09:00', zone }, 0, start);
    }
    expect(made.mock.calls.length).toBe(first);
  });
});
