import { LRUCache } from 'lru-cache';

// Reading an instant in a time zone (its calendar day, its wall clock) takes an
// Intl.DateTimeFormat. Making one costs more than ten uses of it, and what it holds is native
// memory that only a full collection frees: one made per conversion took a process from 97 MiB
// to 1.2 GiB over 100,000 digest checks. So each zone has one format per shape, made on first
// use and kept, the least recently used let go past a bound.

/** The ways the app reads an instant in a zone. */
const SHAPES = {
  /** The calendar day, `2026-01-15`: en-CA writes a date the ISO way. */
  day: { locale: 'en-CA', options: { year: 'numeric', month: '2-digit', day: '2-digit' } },
  /** Every field of the wall clock, on a 24-hour clock: what the zone's offset is read from. */
  clock: {
    locale: 'en-US',
    options: {
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    },
  },
} as const satisfies Record<string, { locale: string; options: Intl.DateTimeFormatOptions }>;

export type ZoneFormatShape = keyof typeof SHAPES;

/** Makes a format (tests pass one that counts). */
export type MakeFormat = (
  locale: string,
  options: Intl.DateTimeFormatOptions,
) => Intl.DateTimeFormat;

export interface ZoneFormats {
  /** `shape`'s format in `zone`; a RangeError, and nothing kept, for a zone Intl does not know. */
  get(zone: string, shape: ZoneFormatShape): Intl.DateTimeFormat;
  readonly size: number;
}

/**
 * At most this many formats are kept, about 45 KiB each: both shapes of 128 zones, more than
 * the zones of a workspace's people, and a few MiB at worst.
 */
export const MAX_ZONE_FORMATS = 256;

const makeFormat: MakeFormat = (locale, options) => new Intl.DateTimeFormat(locale, options);

export function createZoneFormats(options: { max?: number; make?: MakeFormat } = {}): ZoneFormats {
  const make = options.make ?? makeFormat;
  const formats = new LRUCache<string, Intl.DateTimeFormat>({
    max: options.max ?? MAX_ZONE_FORMATS,
  });
  return {
    get(zone, shape) {
      const key = `${shape} ${zone}`;
      let format = formats.get(key);
      if (format === undefined) {
        const { locale, options: shaped } = SHAPES[shape];
        format = make(locale, { ...shaped, timeZone: zone });
        formats.set(key, format);
      }
      return format;
    },
    get size() {
      return formats.size;
    },
  };
}

/** The process's formats, which every conversion reads through. None is made at start-up. */
const shared = createZoneFormats();

/** `shape`'s format in `zone`, kept for the next conversion; throws for an unknown zone. */
export function zoneFormat(zone: string, shape: ZoneFormatShape): Intl.DateTimeFormat {
  return shared.get(zone, shape);
}
