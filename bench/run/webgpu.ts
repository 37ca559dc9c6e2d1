// The WebGPU section: edgeseg on webgpu against onnxruntime-web's WebGPU execution provider alone.
import { chromium } from 'playwright-core';
import { type PlatformServer } from '../../server/index.js';
import { CHROMIUM_GPU_ARGS, CHROMIUM_PATH, CHROMIUM_WEBGPU_ARGS } from '../../test/chromium.js';
import { IMAGE_SIZES, imagePath, MODELS } from '../paths.js';
import { spread, summarize, table } from '../stats.js';
import { flag, RUNS, WARMUP, THREADS, WEBGPU_ALL, line } from './options.js';
import {
  judge,
  call,
  url,
  hostedConfig,
  type ModelKey,
  type Environment,
  benchPage,
  type Row,
  measureEdgeseg,
  equalShare,
  pct,
  stageTable,
} from './harness.js';

export interface AdapterInfo {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  isFallbackAdapter?: boolean;
}
export type WebgpuRow = Omit<Row, 'transformers' | 'hosted'>;
export interface WebgpuResults {
  environment: Environment;
  /** How Chromium was started for it, and why so. */
  chromium: { args: string[]; launch: string };
  adapter: AdapterInfo | null;
  /** Why the figures say nothing of WebGPU's speed (a software adapter, or none); null on a hardware adapter. */
  notASpeedFigure: string | null;
  runs: number;
  warmup: number;
  /** Where onnxruntime-web's WebGPU EP left its outputs, with default options. */
  outputLocation: string;
  /** Wall time of the whole section, browser start included. */
  seconds: number;
  rows: WebgpuRow[];
}

export const describeAdapter = (a: AdapterInfo) =>
  `${[a.vendor || 'unknown vendor', a.architecture, a.device, a.description].filter(Boolean).join(' ')}${a.isFallbackAdapter ? ' (fallback adapter)' : ''}`;

/** Why an adapter is software, from its info; null for a hardware one. */
export function softwareAdapter(a: AdapterInfo): string | null {
  const name = `${a.vendor} ${a.architecture} ${a.device} ${a.description}`;
  if (/swiftshader/i.test(name)) return 'software adapter (SwiftShader)';
  if (/llvmpipe|lavapipe/i.test(name)) return 'software adapter (Mesa llvmpipe)';
  if (a.isFallbackAdapter) return 'software adapter (a fallback adapter)';
  return null;
}

/**
 * 7. WebGPU, in a Chromium of its own: edgeseg segment() and segmentRaw() on webgpu, onnxruntime-web's
 * WebGPU EP alone, and edgeseg's mask against the hosted route's. Every model and image on a hardware
 * adapter; on a software one only the bundled model at 640×480 (unless --webgpu-all).
 */
export async function webgpuSection(
  origin: string,
  platforms: Record<ModelKey, PlatformServer>,
  hostedMasks: Map<string, string>,
): Promise<WebgpuResults> {
  const t0 = performance.now();
  const extra = process.env.EDGESEG_WEBGPU_ARGS?.split(/\s+/).filter(Boolean) ?? [];
  const open = async (args: string[]) => {
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args });
    const { page, environment } = await benchPage(browser, origin);
    return { browser, page, environment, args, adapter: await call<AdapterInfo | null>(page, 'adapter', {}) };
  };
  let gpu = await open([...CHROMIUM_GPU_ARGS, ...extra]);
  let launch = 'the flags for a real GPU (CHROMIUM_GPU_ARGS)';
  if (!gpu.adapter) {
    // Chromium offered no adapter at all (not even its fallback): SwiftShader, forced, as the WebGPU tests run.
    await gpu.browser.close();
    gpu = await open([...CHROMIUM_WEBGPU_ARGS, ...extra]);
    launch = 'SwiftShader forced (CHROMIUM_WEBGPU_ARGS), after the flags for a real GPU gave no adapter';
  }
  const { page, adapter } = gpu;
  const notASpeedFigure = adapter ? softwareAdapter(adapter) : 'no WebGPU adapter in this Chromium';
  const runs = notASpeedFigure ? (flag('runs') ?? 3) : RUNS;
  const warmup = notASpeedFigure ? (flag('warmup') ?? 1) : WARMUP;
  line(`\nWebGPU: Chromium started with ${launch}: ${gpu.args.join(' ')}`);
  line(adapter ? `adapter: ${describeAdapter(adapter)}` : 'no WebGPU adapter: nothing to measure');
  const every = (Object.keys(MODELS) as ModelKey[]).map((k) => [k, IMAGE_SIZES] as const);
  const cases: ReadonlyArray<readonly [ModelKey, readonly string[]]> = !adapter
    ? []
    : !notASpeedFigure || WEBGPU_ALL
      ? every
      : [['shapes', ['640x480']]];
  if (adapter && notASpeedFigure) {
    line(
      `${notASpeedFigure}: its figures are not a speed measurement; ${WEBGPU_ALL ? 'every model and image (--webgpu-all)' : 'only the bundled shapes model at 640×480 (LRASPP at 512² takes far too long in software; --webgpu-all runs everything)'}, ${runs} runs after ${warmup} warm-up`,
    );
  }

  const rows: WebgpuRow[] = [];
  let outputLocation = '';
  for (const [key, sizes] of cases) {
    const model = MODELS[key];
    const modelUrl = `${url(model.dir)}/`;
    const alone = await call<{ times: number[]; location: string }>(page, 'ortAlone', {
      model: modelUrl,
      image: '',
      threads: THREADS,
      runs,
      warmup,
      backend: 'webgpu',
    });
    outputLocation = alone.location;
    for (const size of sizes) {
      const base = { model: modelUrl, image: url(imagePath(size)), threads: THREADS, runs, warmup, backend: 'webgpu' };
      const e = await measureEdgeseg(page, base);
      // Section 1 asked the hosted route already, unless it did not run.
      const hosted =
        hostedMasks.get(`${key} ${size}`) ??
        (await call<{ mask: string }>(page, 'hosted', { ...base, runs: 1, warmup: 0, ...hostedConfig(platforms[key]) })).mask;
      const row: WebgpuRow = {
        model: model.label,
        image: size,
        equalShare: equalShare(e.mask, hosted),
        edgeseg: e.edgeseg,
        raw: e.raw,
        stages: e.stages,
        ortAlone: summarize(alone.times),
      };
      rows.push(row);
      line(
        `WebGPU ${model.label} ${size}: mask = hosted on ${pct(row.equalShare)} of pixels · edgeseg ${spread(row.edgeseg)} · raw ${spread(row.raw)} · model alone ${spread(row.ortAlone)} ms · end to end ÷ model alone ${(row.edgeseg.median / row.ortAlone.median).toFixed(2)}`,
      );
    }
    await call(page, 'dispose', {});
  }
  await gpu.browser.close();
  return {
    environment: gpu.environment,
    chromium: { args: gpu.args, launch },
    adapter,
    notASpeedFigure,
    runs,
    warmup,
    outputLocation,
    seconds: (performance.now() - t0) / 1000,
    rows,
  };
}

export function webgpuReport(w: WebgpuResults): string {
  const launched = `Chromium started with ${w.chromium.launch}: \`${w.chromium.args.join(' ')}\`.`;
  if (!w.adapter) return `\n### WebGPU in Chromium\n\n${launched}\n\n${w.notASpeedFigure}: nothing measured.`;
  const out = [
    `\n### End to end in Chromium on WebGPU, encoded JPEG in; ms, median (p10–p90) of ${w.runs} runs after ${w.warmup} warm-up runs\n`,
    launched,
  ];
  out.push(
    `Adapter: ${describeAdapter(w.adapter)}${w.notASpeedFigure ? ` — a ${w.notASpeedFigure}: these figures show that the harness runs and what the masks are, not how fast WebGPU is` : ''}.`,
  );
  out.push(
    `The model alone: onnxruntime-web's WebGPU EP, graphOptimizationLevel all, each run session.run with its outputs on the CPU (the EP returned \`${w.outputLocation}\` tensors${w.outputLocation === 'cpu' ? ', so its run includes their download' : ', read back in the timed run'}). The section took ${w.seconds.toFixed(0)} s.\n`,
  );
  out.push(
    table(
      [
        'model',
        'image',
        'edgeseg segment()',
        'segmentRaw()',
        'model alone (WebGPU EP, logits on the CPU)',
        'end to end ÷ model alone',
        'mask = hosted',
      ],
      w.rows.map((r) => [
        r.model,
        r.image,
        spread(r.edgeseg),
        spread(r.raw),
        spread(r.ortAlone),
        (r.edgeseg.median / r.ortAlone.median).toFixed(2),
        pct(r.equalShare),
      ]),
    ),
  );
  out.push(
    "\n### edgeseg stage breakdown on WebGPU, ms (median); `run` submits the model's GPU work, `postprocess` waits for it and the shader\n",
  );
  out.push(stageTable(w.rows));
  return out.join('\n');
}

export function webgpuTargets(w: WebgpuResults): void {
  const target = 'WebGPU end to end ≤ 1.2 × the model alone at 1024×768 (LRASPP)';
  const ratio = (r: WebgpuRow) => r.edgeseg.median / r.ortAlone.median;
  const lr = w.rows.find((r) => r.image === '1024x768' && r.model.startsWith('LRASPP'));
  if (!w.adapter) judge(target, w.notASpeedFigure!, 'NOT MEASURED');
  else if (w.notASpeedFigure) {
    const shown = lr
      ? `${ratio(lr).toFixed(2)}×`
      : `LRASPP not run; ${w.rows[0]!.model} at ${w.rows[0]!.image}: ${ratio(w.rows[0]!).toFixed(2)}×`;
    judge(target, `${w.notASpeedFigure}: not a speed figure, ${shown}`, 'NOT MEASURED');
  } else judge(target, `${ratio(lr!).toFixed(2)}×`, ratio(lr!) <= 1.2);
  // The masks are a correctness figure: a software adapter answers it as well as a real GPU.
  if (!w.rows.length) return;
  const worst = Math.min(...w.rows.map((r) => r.equalShare));
  const all = w.rows.length === Object.keys(MODELS).length * IMAGE_SIZES.length;
  judge(
    'edgeseg WebGPU payload equals the hosted route (onnxruntime-node) on ≥ 99.99% of pixels, every model and image',
    `${pct(worst)}${all ? '' : ` (${w.rows.map((r) => `${r.model} at ${r.image}`).join(', ')} only)`}`,
    worst < 0.9999 ? false : all || 'NOT MEASURED',
  );
}
