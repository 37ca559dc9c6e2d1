// Where the benchmark's models and images are (made by models/shapes/make_bench_models.py; git-ignored).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BENCH_MODELS = join(ROOT, 'bench', 'models');
export const IMAGES = join(BENCH_MODELS, 'images');
export const IMAGE_SIZES = ['640x480', '1024x768', '4032x3024'] as const;
export const imagePath = (size: string) => join(IMAGES, `scene-${size}.jpg`);

/** The models of the benchmark: the bundled one and a benchmark-size one. */
export const MODELS = {
  shapes: { dir: join(BENCH_MODELS, 'shapes'), hf: 'shapes', classes: 5, label: 'bundled shapes model (256², 5 classes)' },
  lraspp: {
    dir: join(BENCH_MODELS, 'lraspp-mbv3-large-512'),
    hf: 'lraspp-mbv3-large-512',
    classes: 21,
    label: 'LRASPP-MobileNetV3-Large (512², 21 classes)',
  },
} as const;

export function requireBenchModels(): void {
  if (!existsSync(join(MODELS.lraspp.dir, 'weights.onnx')) || !existsSync(imagePath('4032x3024'))) {
    throw new Error(
      'benchmark models and images are missing: run `/usr/bin/python3 models/shapes/make_bench_models.py` (Debian: python3-torch, python3-torchvision, python3-opencv)',
    );
  }
}
