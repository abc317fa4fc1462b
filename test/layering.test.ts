import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = fileURLToPath(new URL('fixtures/layering/', import.meta.url));

interface Violation {
  rule: string;
  from: string;
  to: string;
}

/** Cruises `src` and `offline` under baseDir with the rules `npm run lint:deps` uses. */
async function cruiseTree(
  baseDir: string,
): Promise<{ modules: string[]; violations: Violation[] }> {
  const tsConfigFile = `${root}tsconfig.json`;
  const options = await extractDepcruiseOptions(`${root}.dependency-cruiser.mjs`);
  const { output } = await cruise(
    ['src', 'offline'],
    { ...options, baseDir, tsConfig: { fileName: tsConfigFile } },
    undefined,
    { tsConfig: extractTSConfig(tsConfigFile) },
  );
  // The API answers with a string only when asked for a text reporter (outputType).
  if (typeof output === 'string') throw new Error('expected the cruise result, got a report');
  const result: ICruiseResult = output;
  const violations = result.summary.violations
    .map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }))
    .sort((a, b) => `${a.rule} ${a.from} ${a.to}`.localeCompare(`${b.rule} ${b.from} ${b.to}`));
  return { modules: result.modules.map((m) => m.source), violations };
}

describe('layering rules (.dependency-cruiser.mjs)', () => {
  it('report every wrong import in the fixture, and nothing else', async () => {
    const { violations } = await cruiseTree(fixture);
    // Where @slack/types resolves depends on the install; the package name is what matters.
    const normalised = violations.map((v) => ({
      ...v,
      to: v.to.replace(/^.*node_modules\/(@slack\/[^/]+)\/.*$/, '$1'),
    }));

    expect(normalised).toEqual([
      {
        rule: 'changes-import-no-features',
        from: 'src/changes/apply.ts',
        to: 'src/features/roles/role-view.ts',
      },
      {
        rule: 'cometchat-knows-no-metrics',
        from: 'src/cometchat/client.ts',
        to: 'src/observe/metrics.ts',
      },
      {
        rule: 'cometchat-knows-no-slack',
        from: 'src/cometchat/client.ts',
        to: '@slack/types',
      },
      {
        rule: 'cometchat-knows-no-slack',
        from: 'src/cometchat/client.ts',
        to: 'src/slack/mrkdwn.ts',
      },
      {
        rule: 'cometchat-standin-knows-no-app',
        from: 'offline/cometchat-standin/catalogue.ts',
        to: 'src/cometchat/client.ts',
      },
      {
        rule: 'features-are-independent',
        from: 'src/features/calls/call-lookup.ts',
        to: 'src/features/roles/role-list.ts',
      },
      {
        rule: 'features-import-not-the-list',
        from: 'src/features/roles/role-list.ts',
        to: 'src/features/index.ts',
      },
      { rule: 'no-one-imports-main', from: 'offline/try.ts', to: 'src/main.ts' },
      {
        rule: 'offline-imports-no-features',
        from: 'offline/try.ts',
        to: 'src/features/roles/role-view.ts',
      },
      {
        rule: 'slack-kit-imports-no-features',
        from: 'src/slack/router.ts',
        to: 'src/features/help/help-view.ts',
      },
      {
        rule: 'slack-knows-no-cometchat',
        from: 'src/slack/router.ts',
        to: 'src/cometchat/client.ts',
      },
      {
        rule: 'slack-knows-nothing-above',
        from: 'src/slack/router.ts',
        to: 'src/observe/metrics.ts',
      },
      {
        rule: 'slack-standin-knows-no-app',
        from: 'offline/slack-standin/server.ts',
        to: 'src/slack/mrkdwn.ts',
      },
      {
        rule: 'src-imports-no-tooling',
        from: 'src/features/help/help-view.ts',
        to: 'offline/stack/stack.ts',
      },
      { rule: 'src-reachable-from-main', from: 'src/unused.ts', to: 'src/unused.ts' },
    ]);
  });

  it('find no violation in the real tree', async () => {
    const { modules, violations } = await cruiseTree(root);
    // An empty cruise would find nothing wrong too.
    expect(modules).toContain('src/main.ts');
    expect(violations).toEqual([]);
  });
});
