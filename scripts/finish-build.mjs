// After tsc: the compiled segmenter must point at the compiled worker (.js), not the TypeScript source.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../dist/src/runtime/segmenter.js', import.meta.url);
const source = readFileSync(file, 'utf8');
const fixed = source.replaceAll("'../../workers/segment-worker.ts'", "'../../workers/segment-worker.js'");
if (fixed === source) throw new Error('finish-build: the worker URL was not found in dist/src/runtime/segmenter.js');
writeFileSync(file, fixed);
