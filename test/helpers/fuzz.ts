// Settings shared by the fuzz tests: a fixed seed and small run counts in `npm test` (cheap, the same cases
// every run); `npm run fuzz:inputs` scales the counts up and draws a new seed, printed so a failure replays.
import fc from 'fast-check';
import { badImages, SIGNATURES, type Samples } from '../fixtures/bad-images.js';

// Also loaded in the browser, where there is no `process`: the defaults then.
const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
const scale = Number(env.EDGESEG_FUZZ_SCALE ?? 1);
const seedText = env.EDGESEG_FUZZ_SEED;
/** The seed: fixed unless the soak asks for a random one (EDGESEG_FUZZ_SEED=random) or a given one. */
export const FUZZ_SEED = seedText === 'random' ? (Math.random() * 2 ** 31) | 0 : seedText ? Number(seedText) : 0x5eed;
if (scale !== 1 || seedText) console.log(`fuzz: seed ${FUZZ_SEED}, ${scale}× the runs (replay with EDGESEG_FUZZ_SEED=${FUZZ_SEED})`);

/** fast-check parameters for a property that runs `runs` times in CI. */
export const fuzzParams = (runs: number): fc.Parameters<unknown> => ({
  seed: FUZZ_SEED,
  numRuns: Math.max(1, Math.round(runs * scale)),
  endOnFailure: true,
});

/** An image to throw at a decoder: one of the samples damaged, a known signature with junk, or any bytes. */
export function corruptImage(samples: Samples): fc.Arbitrary<Uint8Array> {
  const sample = fc.constantFrom(...Object.values(samples));
  const table = fc.constantFrom(...badImages(samples).map((b) => b.bytes));
  const truncated = sample.chain((b) => fc.integer({ min: 0, max: b.length - 1 }).map((n) => b.slice(0, n)));
  // Bytes overwritten where the headers live (the first 64) or anywhere.
  const garbled = fc
    .tuple(sample, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.boolean()), { minLength: 1, maxLength: 8 }))
    .map(([b, edits]) => {
      const out = b.slice();
      for (const [at, value, inHeader] of edits) out[inHeader ? at % Math.min(64, out.length) : at % out.length] = value;
      return out;
    });
  // A size field (any 2 or 4 bytes in the first 64) set to 0, 1, or its maximum: lying headers.
  const lying = fc
    .tuple(sample, fc.integer({ min: 4, max: 60 }), fc.constantFrom(0x00, 0x01, 0x7f, 0x80, 0xff), fc.constantFrom(2, 4))
    .map(([b, at, value, width]) => {
      const out = b.slice();
      out.fill(value, at, at + width);
      return out;
    });
  const signatureAndJunk = fc.tuple(fc.constantFrom(...Object.values(SIGNATURES)), fc.uint8Array({ maxLength: 200 })).map(([sig, tail]) => {
    const out = new Uint8Array(sig.length + tail.length);
    out.set(sig);
    out.set(tail, sig.length);
    return out;
  });
  const spliced = fc.tuple(sample, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 32 })).map(([b, at, insert]) => {
    const cut = at % b.length;
    const out = new Uint8Array(b.length + insert.length);
    out.set(b.subarray(0, cut));
    out.set(insert, cut);
    out.set(b.subarray(cut), cut + insert.length);
    return out;
  });
  return fc.oneof(truncated, garbled, lying, signatureAndJunk, spliced, table, fc.uint8Array({ maxLength: 300 }));
}
