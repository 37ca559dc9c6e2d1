// The local platform's routes under random requests (fast-check, seeded and bounded for CI; the soak,
// `npm run fuzz:routes`, runs the same properties longer): no 5xx, every failure a JSON error with a code,
// no stack trace and no secret in any answer, the server still serving, and its heap flat after GC.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { answerProblems, requestArbitrary, sendAll, startMemoryServer, type MemoryServer } from '../fuzz/platform-routes.js';
import { ensureBuilt } from '../helpers/built-cli.js';
import { FUZZ_SEED, fuzzParams } from '../helpers/fuzz.js';
import { rawHttp } from '../helpers/raw-http.js';

let dir: string;
let server: MemoryServer;
beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'edgeseg-fuzz-'));
  server = await startMemoryServer(join(dir, 'data'));
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const stillServing = async () => expect((await rawHttp(server.base, { path: `/?api_key=${server.apiKey}` })).status).toBe(200);

test('300 random requests: no 5xx, every failure a coded JSON error, no stack trace, no secret', async () => {
  await fc.assert(
    fc.asyncProperty(requestArbitrary(server), async (request) => {
      const problems = answerProblems(request, await rawHttp(server.base, request), server);
      if (problems.length) throw new Error(problems.join('\n'));
    }),
    // The fuzz tests' seed and scale (EDGESEG_FUZZ_SEED=n|random, EDGESEG_FUZZ_SCALE); a failure prints its seed and path.
    fuzzParams(300),
  );
  await stillServing();
});

// The CI variant; the soak sends 10,000 after the warm-up.
test('after 1,500 bad requests the heap (after GC) is within 10% of where it was', async () => {
  const requests = fc.sample(requestArbitrary(server), { numRuns: 2000, seed: FUZZ_SEED + 1 });
  // Warm-up: the first requests load the model, compile code and fill caches that are meant to stay.
  expect(await sendAll(server, requests.slice(0, 500))).toEqual([]);
  const before = await server.heap();
  expect(await sendAll(server, requests.slice(500))).toEqual([]);
  const after = await server.heap();
  expect(Math.abs(after - before) / before, `heap after GC ${before} → ${after} bytes`).toBeLessThan(0.1);
  await stillServing();
});
