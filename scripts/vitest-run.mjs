// `vitest run` (with the arguments given), with one allowance: where a browser's own process died in the
// middle of a test file ("Browser connection was closed while running tests"), and nothing else failed,
// the files of that project that did not finish run once more, in a fresh run. Vitest cannot retry a file
// whose page died (`retry` is per test), and a dead page ends every file of its project still queued.
//
// Why: WebKitGTK 2.50's web process sometimes stops on a failed bounds check in Skia's GPU resource cache
// (an invalid opcode in libwebkit2gtk), when a bitmap made on one thread is used on another: see
// CONTRIBUTING.md, "A browser that crashes". That is the engine's fault, not the test's. A file that
// crashes its browser every time still fails, as does any test that fails, on either run.
import { createVitest, parseCLI } from 'vitest/node';

const CRASH = /Browser connection was closed while running tests/;

/** The text of an error and of its causes. */
function chain(error) {
  const parts = [];
  for (let e = error, depth = 0; e && depth < 8; e = e.cause, depth++) parts.push(String(e?.message ?? e));
  return parts.join(' <- ');
}

/**
 * One run of Vitest over `filters` with `options`: whether anything failed other than a page that died,
 * and, per project, the files that did not finish.
 */
async function run(filters, options) {
  const vitest = await createVitest('test', { ...options, watch: false });
  try {
    // As `vitest run` says it where no file matched the filters (a failure).
    const found = await vitest.start(filters).then(
      () => true,
      (error) => {
        if (error?.code !== 'VITEST_FILES_NOT_FOUND') throw error;
        console.error(error.message);
        return false;
      },
    );
    const errors = vitest.state.getUnhandledErrors();
    const crashes = errors.filter((error) => CRASH.test(chain(error)));
    const modules = vitest.state.getTestModules();
    const finished = new Set(
      modules.filter((m) => ['passed', 'failed', 'skipped'].includes(m.state())).map((m) => `${m.project.name}\0${m.moduleId}`),
    );
    const unfinished = new Map();
    if (crashes.length > 0) {
      for (const spec of await vitest.globTestSpecifications(filters)) {
        const name = spec.project.name;
        if (finished.has(`${name}\0${spec.moduleId}`)) continue;
        unfinished.set(name, [...(unfinished.get(name) ?? []), spec.moduleId]);
      }
    }
    return {
      // A module with a failed test, or one that failed to load, is 'failed'.
      failed: !found || modules.some((m) => m.state() === 'failed') || errors.length > crashes.length,
      crashes,
      unfinished,
    };
  } finally {
    await vitest.close();
  }
}

process.env.TEST = 'true';
process.env.VITEST = 'true';
process.env.NODE_ENV ??= 'test';
const { filter, options } = parseCLI(['vitest', 'run', ...process.argv.slice(2)]);
const first = await run(filter, options);
let failed = first.failed || (first.crashes.length > 0 && first.unfinished.size === 0);
if (!first.failed && first.unfinished.size > 0) {
  for (const [project, files] of first.unfinished) {
    console.log(
      `\nThe browser of project ${project} closed its page in the middle of a file (its own process died), and ` +
        `${files.length} of its files did not finish. They run once more (see CONTRIBUTING.md, "A browser that crashes").\n`,
    );
    const again = await run(files, { ...options, project: [project] });
    failed ||= again.failed || again.crashes.length > 0;
  }
}
process.exitCode = failed ? 1 : 0;
