// What reading and checking weights.onnx, then writing it again for the runtime (src/model/onnx-model.ts),
// costs next to onnxruntime's own load of the same model, for the bundled models and a 100+ MB model.
//
//   npx tsx bench/model-read.ts [--runs 10]
//
// The large model is torchvision's FCN-ResNet50 (seeded random weights: speed does not depend on training),
// exported once by Debian's Python into bench/models/fcn-resnet50/ (git-ignored).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { readOnnxModel } from '../src/model/index.js';
import { BENCH_MODELS, ROOT } from './paths.js';
import { summarize } from './stats.js';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1] || 10);

const LARGE = join(BENCH_MODELS, 'fcn-resnet50', 'weights.onnx');
if (!existsSync(LARGE)) {
  mkdirSync(join(BENCH_MODELS, 'fcn-resnet50'), { recursive: true });
  const script = `
import torch
from torchvision.models.segmentation import fcn_resnet50
torch.manual_seed(0)
model = fcn_resnet50(weights=None, weights_backbone=None, num_classes=21, aux_loss=False).eval()
class Logits(torch.nn.Module):
    def __init__(self, m):
        super().__init__(); self.m = m
    def forward(self, x):
        return self.m(x)["out"]
torch.onnx.export(Logits(model), torch.zeros(1, 3, 520, 520), ${JSON.stringify(LARGE)}, opset_version=17,
                  input_names=["input"], output_names=["logits"])
`;
  const made = spawnSync('/usr/bin/python3', ['-c', script], { stdio: 'inherit' });
  if (made.status !== 0) throw new Error('exporting FCN-ResNet50 failed (Debian: python3-torch, python3-torchvision, python3-onnx)');
}

const MODELS: [string, string][] = [
  ['people (bundled)', join(ROOT, 'models', 'people', 'general', 'weights.onnx')],
  ['people-landscape (bundled)', join(ROOT, 'models', 'people', 'landscape', 'weights.onnx')],
  ['shapes (bundled)', join(ROOT, 'models', 'shapes', 'package', 'weights.onnx')],
  ['FCN-ResNet50', LARGE],
];

const ms = (samples: number[]) => summarize(samples).median;
console.log(`| model | size | read + check | write | both | onnxruntime-node load | both ÷ load | heap while held |`);
console.log(`|---|---|---|---|---|---|---|---|`);
for (const [name, path] of MODELS) {
  const bytes = new Uint8Array(readFileSync(path));
  const read: number[] = [];
  const write: number[] = [];
  const load: number[] = [];
  let heap = 0;
  for (let i = 0; i < runs + 1; i++) {
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    let t = performance.now();
    const model = readOnnxModel(bytes);
    const tRead = performance.now() - t;
    t = performance.now();
    const written = model.bytes();
    const tWrite = performance.now() - t;
    heap = Math.max(heap, process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - heapBefore);
    t = performance.now();
    const session = await ort.InferenceSession.create(written, { graphOptimizationLevel: 'all' });
    const tLoad = performance.now() - t;
    await session.release();
    if (i === 0) continue; // warm-up
    read.push(tRead);
    write.push(tWrite);
    load.push(tLoad);
  }
  const both = read.map((r, i) => r + write[i]!);
  const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`;
  console.log(
    `| ${name} | ${mb(bytes.length)} | ${ms(read).toFixed(1)} ms | ${ms(write).toFixed(1)} ms | ${ms(both).toFixed(1)} ms | ${ms(load).toFixed(0)} ms | ${(ms(both) / ms(load)).toFixed(3)} | ${mb(heap)} |`,
  );
}
