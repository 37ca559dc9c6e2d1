// The architecture's rules, checked by `npm run deps:check` in `npm test`: the library (src/) imports
// nothing from a folder above it (the worker, the server, tests), the command line only the local platform
// it serves, and no module imports itself round a circle.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'src-stays-in-src',
      comment:
        'src/ is the library: it may import its own modules and packages, nothing from workers/, server/, test/ or elsewhere above it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      // ./people-model.js: createVideoEffect's default model, written beside the browser bundle (scripts/build-models.mjs).
      to: { pathNot: ['^src/', 'node_modules', '^\\./people-model\\.js$'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'cli-reaches-only-the-server',
      comment:
        'The command line is the one app in src/: besides the library, it may start the local platform (server/, for `edgeseg serve`), and nothing else above src/.',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { pathNot: ['^src/', '^server/', 'node_modules'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'no-circular',
      comment: 'A module that reaches itself through its imports.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.mjs'],
      conditionNames: ['import', 'require', 'node', 'default'],
      exportsFields: ['exports'],
    },
  },
};
