// The soak of the local platform's routes: the properties of test/e2e/platform-fuzz.test.ts, run longer.
//   npm run fuzz:routes -- [--runs 20000] [--requests 10000] [--seed N]
// --runs random requests one at a time, each answer checked; then --requests more, 8 at a time, after a
// warm-up of 1,000, with the server's heap (after GC) measured before and after: it must stay within 10%.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { answerProblems, requestArbitrary, sendAll, startMemoryServer } from '../test/fuzz/platform-routes.js';
import { ensureBuilt } from '../test/helpers/built-cli.js';
import { rawHttp } from '../test/helpers/raw-http.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20000' },
    requests: { type: 'string', default: '10000' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
  },
});
const runs = Number(values.runs);
const requests = Number(values.requests);
const seed = Number(values.seed);

ensureBuilt();
const dir = await mkdtemp(join(tmpdir(), 'edgeseg-fuzz-soak-'));
const server = await startMemoryServer(join(dir, 'data'));
let failed: boolean;
try {
  console.log(`seed ${seed}: ${runs} requests one at a time`);
  const started = performance.now();
  await fc.assert(
    fc.asyncProperty(requestArbitrary(server), async (request) => {
      const problems = answerProblems(request, await rawHttp(server.base, request), server);
      if (problems.length) throw new Error(problems.join('\n'));
    }),
    { numRuns: runs, seed },
  );
  console.log(`  no problem (${((performance.now() - started) / 1000).toFixed(1)} s)`);

  const batch = fc.sample(requestArbitrary(server), { numRuns: 1000 + requests, seed: seed + 1 });
  const problems = await sendAll(server, batch.slice(0, 1000));
  const before = await server.heap();
  problems.push(...(await sendAll(server, batch.slice(1000))));
  const after = await server.heap();
  const change = (after - before) / before;
  console.log(
    `${requests} more, 8 at a time: ${problems.length} problem(s); heap after GC ${(before / 2 ** 20).toFixed(2)} MiB → ${(after / 2 ** 20).toFixed(2)} MiB (${(100 * change).toFixed(1)}%)`,
  );
  for (const p of problems.slice(0, 20)) console.log(`  ${p}`);
  failed = problems.length > 0 || Math.abs(change) >= 0.1;
  const alive = await rawHttp(server.base, { path: `/?api_key=${server.apiKey}` });
  console.log(`still serving: ${alive.status === 200}`);
  failed ||= alive.status !== 200;
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  failed = true;
} finally {
  await server.close();
  await rm(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
