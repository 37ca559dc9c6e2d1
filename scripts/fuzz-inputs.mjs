// The input fuzz tests as a soak: `npm run fuzz:inputs [-- --scale 50 --seed 1234]` runs the image decoder,
// package parser and payload normaliser properties with many more cases than `npm test`, on a new seed
// (printed, so a failure replays with `--seed`).
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { scale: { type: 'string', default: '50' }, seed: { type: 'string', default: 'random' } } });
const files = ['test/unit/fuzz/image-decoders.test.ts', 'test/unit/fuzz/model-package.test.ts', 'test/unit/fuzz/normalize-hosted.test.ts'];
const result = spawnSync('npx', ['vitest', 'run', '--project', 'unit', ...files], {
  stdio: 'inherit',
  env: { ...process.env, EDGESEG_FUZZ_SCALE: values.scale, EDGESEG_FUZZ_SEED: values.seed },
});
process.exit(result.status ?? 1);
