import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/observe/metrics.ts';

// docs/alerting.md is copied into alert rules: every metric it names must be one the app
// exports, or a rule would watch a series that never exists and never fire.

const doc = readFileSync(new URL('../../docs/alerting.md', import.meta.url), 'utf8');

describe('docs/alerting.md', () => {
  it('names only metrics the app exports', async () => {
    const exported = await createMetrics().registry.getMetricsAsJSON();
    const names = new Set(exported.map((metric) => metric.name));
    const named = [...new Set(doc.match(/\b(?:cometchat_ops|nodejs|process)_[a-z0-9_]+/g))];
    expect(named.length).toBeGreaterThan(10);
    const series = (name: string) => name.replace(/_(bucket|count|sum)$/, '');
    expect(named.filter((name) => !names.has(series(name)))).toEqual([]);
  });
});
