// The import-graph check (issue 30, "Done when"): `npm run check:imports`, run by .ci/run next to lint.
// It reads packages/*/src and fails on a circle (type-only imports included: a circle of types is
// still a circle) or on an import from a lower layer to a higher one (DESIGN.md §2). Sizes (no file
// over 400 lines, no function over 60, in runtime/, tool-sources/ and store/) are checked by
// scripts/check-file-sizes.mjs and scripts/check-function-sizes.mjs. No violation is known: any fails.

/** A folder of the runtime package's sources. */
const wardrik = (folder) => `^packages/wardrik/src/${folder}/`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A circle of imports (type-only ones included): the modules in it cannot be understood, tested or moved apart.',
      from: { path: '^packages/[^/]+/src/' },
      to: { circular: true },
    },
    {
      name: 'core-imports-no-package-above-it',
      severity: 'error',
      comment: '@wardrik/core is the bottom layer: it imports nothing of wardrik or @wardrik/worker.',
      from: { path: '^packages/core/src/' },
      to: { path: ['^packages/(wardrik|worker)/', '(^|/)node_modules/(wardrik|@wardrik/worker)/'] },
    },
    {
      name: 'worker-imports-no-runtime',
      severity: 'error',
      comment: '@wardrik/worker connects a program to Wardrik over the wire; it does not import the runtime package.',
      from: { path: '^packages/worker/src/' },
      to: { path: ['^packages/wardrik/', '(^|/)node_modules/wardrik/'] },
    },
    {
      name: 'tool-sources-import-no-runtime',
      severity: 'error',
      comment: 'toolsets/ and workers/ are tool sources the runtime asks; they do not import runtime/.',
      from: { path: [wardrik('toolsets'), wardrik('workers')] },
      to: { path: wardrik('runtime') },
    },
    {
      name: 'policy-reads-no-tool-source-internals',
      severity: 'error',
      comment:
        "The policy judges a call by what its tool source says of it (tool-sources/tool-source-facts.ts), never by workers' or toolsets' private keys.",
      from: { path: '^packages/wardrik/src/runtime/policy\\.ts$' },
      to: { path: [wardrik('toolsets'), wardrik('workers')] },
    },
    {
      name: 'tool-source-facts-import-no-source',
      severity: 'error',
      comment:
        'What a source says of its tools (tool-source-facts.ts) is the contract between the sources and the policy: it imports neither.',
      from: { path: '^packages/wardrik/src/tool-sources/tool-source-facts\\.ts$' },
      to: { path: [wardrik('runtime'), wardrik('toolsets'), wardrik('workers'), wardrik('agents')] },
    },
    {
      name: 'tool-resolver-imports-no-runtime',
      severity: 'error',
      comment:
        'tool-sources/ answers the run loop\'s two questions ("which tools now?", "who runs this call?") by asking the sources; it does not know the loop.',
      from: { path: wardrik('tool-sources') },
      to: { path: wardrik('runtime') },
    },
    {
      name: 'runtime-rooms-in-layers',
      severity: 'error',
      comment:
        "runtime/ in rooms (DESIGN.md §2): node/ (the runs a node holds) drives run/ (one run) and calls/ (a call's phases); one run and its calls never reach up to the node.",
      from: { path: [wardrik('runtime/run'), wardrik('runtime/calls')] },
      to: { path: wardrik('runtime/node') },
    },
    {
      name: 'facade-on-top',
      severity: 'error',
      comment: 'wardrik.ts is the public facade (with its read side and its wiring): nothing in runtime/ imports it.',
      from: {
        path: wardrik('runtime'),
        pathNot: '^packages/wardrik/src/runtime/(wardrik|wardrik-reads|runtime-parts)\\.ts$',
      },
      to: { path: '^packages/wardrik/src/runtime/(wardrik|wardrik-reads|runtime-parts)\\.ts$' },
    },
    {
      name: 'journal-imports-no-store',
      severity: 'error',
      comment: 'The journal (records and the fold over them) is below the stores that keep it.',
      from: { path: wardrik('journal') },
      to: { path: wardrik('store') },
    },
    {
      name: 'store-imports-no-runtime-or-server',
      severity: 'error',
      comment: 'Stores keep what the runtime writes; they know neither the runtime nor the surfaces.',
      from: { path: wardrik('store') },
      to: { path: [wardrik('runtime'), wardrik('server')] },
    },
    {
      name: 'surfaces-touch-no-store',
      severity: 'error',
      comment:
        'Surfaces (the HTTP API, /mcp, the CLI talking to a server) go through the runtime, never the store: they may name its types only.',
      from: { path: [wardrik('server'), wardrik('mcp-server')] },
      to: { path: wardrik('store'), dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'runtime-imports-no-surface',
      severity: 'error',
      comment: 'The run loop never knows which surface started it: runtime/ imports neither server/ nor cli/.',
      from: { path: wardrik('runtime') },
      to: { path: [wardrik('server'), wardrik('cli')] },
    },
  ],
  options: {
    includeOnly: '^packages/[^/]+/src/',
    exclude: { path: '(^|/)(dist|node_modules|test)/' },
    // Type-only imports are dependencies too (a circle of types is still a circle).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'packages/wardrik/tsconfig.json' },
    // The packages' own sources, as the tests load them (package.json exports, condition @wardrik/source).
    enhancedResolveOptions: {
      conditionNames: ['@wardrik/source', 'import', 'types', 'default'],
      exportsFields: ['exports'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
