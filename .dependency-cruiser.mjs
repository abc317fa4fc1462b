// Who may import whom, checked by `npm run lint:deps` (part of `npm test`) over src/ and offline/.
// test/ and bench/ are not cruised: they may import anything.
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      // The REST client is one wrapper around one API; Slack, features and storage build on it.
      name: 'cometchat-knows-no-slack',
      severity: 'error',
      from: { path: '^src/cometchat/' },
      to: { path: ['^src/(slack|features|store)/', '(^|/)node_modules/@slack/', '^@slack/'] },
    },
    {
      // What the client reports (requests, retries, rate limits) is an interface of its own
      // (cometchat/observer.ts), which observe/ satisfies: the client is usable without metrics.
      name: 'cometchat-knows-no-metrics',
      severity: 'error',
      from: { path: '^src/cometchat/' },
      to: { path: '^src/observe/' },
    },
    {
      // src/slack is Slack's glue (receiver, Block Kit, escaping, delivery): it knows nothing of
      // CometChat. What joins the two (the apps, the access rules, the features) lives elsewhere.
      name: 'slack-knows-no-cometchat',
      severity: 'error',
      from: { path: '^src/slack/' },
      to: { path: '^src/(cometchat|apps|store)/' },
    },
    {
      // Nor does it know what sits above it: what the app says (replies/), what it counts (observe/)
      // or who may do what (access/). What slack/ needs of them, the composition root passes in
      // (a client maker that counts, a clock's observer); observe/ and replies/ import slack/.
      name: 'slack-knows-nothing-above',
      severity: 'error',
      from: { path: '^src/slack/' },
      to: { path: '^src/(replies|observe|access)/' },
    },
    {
      // The Slack stand-in imitates Slack, not this app, so the tests cannot pass by sharing code.
      name: 'slack-standin-knows-no-app',
      severity: 'error',
      from: { path: '^offline/slack-standin/' },
      to: { path: ['^src/', '^offline/stack/', '^offline/try\\.ts$'] },
    },
    {
      // Same for the CometChat stand-in; its one exception is data, not code: it reads the
      // permission catalogues (src/cometchat/permissions.json, scope-permissions.json) so both
      // sides agree on the keys.
      name: 'cometchat-standin-knows-no-app',
      severity: 'error',
      from: { path: '^offline/cometchat-standin/' },
      to: {
        path: ['^src/', '^offline/stack/', '^offline/try\\.ts$'],
        pathNot: '^src/cometchat/(scope-)?permissions\\.json$',
      },
    },
    {
      // The offline tooling drives the app the way Slack does, from outside: through app.ts and
      // what the app sends, never by reading a feature's internals.
      name: 'offline-imports-no-features',
      severity: 'error',
      from: { path: '^offline/' },
      to: { path: '^src/features/' },
    },
    {
      // The shared Slack kit serves every feature, so it cannot depend on any one of them.
      // (slack-knows-no-cometchat says it too; this one names the reason.)
      name: 'slack-kit-imports-no-features',
      severity: 'error',
      from: { path: '^src/slack/' },
      to: { path: '^src/features/' },
    },
    {
      // A feature is one folder: what features share is in the files beside the folders
      // (deps.ts, feature.ts, command.ts), never in another feature.
      name: 'features-are-independent',
      severity: 'error',
      from: { path: '^src/features/([^/]+)/' },
      to: { path: '^src/features/', pathNot: '^src/features/($1/|[^/]+\\.ts$)' },
    },
    {
      // The change road sits below the features that propose changes: they import it, never the
      // reverse, so a new kind of change cannot quietly depend on one feature's internals.
      name: 'changes-import-no-features',
      severity: 'error',
      from: { path: '^src/changes/' },
      to: { path: '^src/features/' },
    },
    {
      // features/index.ts is the list of features: a feature importing it would import itself.
      name: 'features-import-not-the-list',
      severity: 'error',
      from: { path: '^src/features/' },
      to: { path: '^src/features/index\\.ts$' },
    },
    {
      // main.ts is the composition root: importing it would start the app as a side effect.
      name: 'no-one-imports-main',
      severity: 'error',
      from: {},
      to: { path: '^src/main\\.ts$' },
    },
    {
      // Production code ships without the offline tooling, the tests and the benchmark.
      name: 'src-imports-no-tooling',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(offline|test|bench)/' },
    },
    {
      // src/ is only what runs in production: a file main.ts cannot reach is dead or misplaced.
      // healthcheck.ts is the image's HEALTHCHECK, an entry point of its own.
      name: 'src-reachable-from-main',
      severity: 'error',
      from: { path: '^src/main\\.ts$' },
      to: { path: '^src/', pathNot: '^src/healthcheck\\.ts$', reachable: false },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports couple modules too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
