// The default workspace: the bundled model's project, its sample images with their annotations, tags,
// splits and batches, a raw version and a version with the trained model.
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeImage } from '../src/node/decode-image.js';
import { decodeMaskPng } from '../src/payload/index.js';
import { imageEmbedding } from './embedding.js';
import type { ImageState, PlatformState } from './store.js';

export interface SeedOptions {
  apiKey: string;
  /** models/shapes/samples: manifest.json, images/, masks/. */
  samplesDir: string;
  /** The trained model's package folder, or `bundled` for the package's own. */
  modelDir: string;
  workspace?: string;
  project?: string;
}

export const DEFAULT_WORKSPACE = 'edgeseg-demo';
export const DEFAULT_PROJECT = 'shapes';

interface SampleManifest {
  classes: string[];
  colors: Record<string, string>;
  images: { id: string; name: string; file: string; mask: string; width: number; height: number; split: string; tags: string[]; batch: string; created: number }[];
}

export async function seedDefault(dataDir: string, options: SeedOptions): Promise<PlatformState> {
  const ws = options.workspace ?? DEFAULT_WORKSPACE;
  const project = options.project ?? DEFAULT_PROJECT;
  const manifest = JSON.parse(await readFile(join(options.samplesDir, 'manifest.json'), 'utf8')) as SampleManifest;
  const base = join('files', ws, project);
  await mkdir(join(dataDir, base, 'images'), { recursive: true });
  await mkdir(join(dataDir, base, 'masks'), { recursive: true });
  const background = manifest.classes.indexOf('background');
  const images: ImageState[] = [];
  for (const sample of manifest.images) {
    const file = join(base, 'images', `${sample.id}.jpg`);
    const mask = join(base, 'masks', `${sample.id}.png`);
    await copyFile(join(options.samplesDir, sample.file), join(dataDir, file));
    await copyFile(join(options.samplesDir, sample.mask), join(dataDir, mask));
    const pixels = await decodeImage(await readFile(join(dataDir, file)));
    const ids = decodeMaskPng(new Uint8Array(await readFile(join(dataDir, mask)))).classIds;
    const present = [...new Set(ids)].filter((c) => c !== background).sort((a, b) => a - b);
    images.push({
      id: sample.id,
      name: sample.name,
      file,
      mask,
      width: sample.width,
      height: sample.height,
      split: sample.split,
      tags: sample.tags,
      batch: sample.batch,
      created: sample.created,
      owner: 'edgeseg',
      classes: present.map((c) => manifest.classes[c]!),
      embedding: imageEmbedding(pixels.data as Uint8Array, ids, manifest.classes.length, background),
    });
  }
  const created = Math.min(...images.map((i) => i.created));
  const ids = images.map((i) => i.id);
  return {
    format: 1,
    exports: {},
    workspaces: [
      {
        url: ws,
        name: 'edgeseg demo',
        apiKey: options.apiKey,
        settings: {},
        captions: {},
        projects: [
          {
            url: project,
            name: 'Shapes',
            type: 'semantic-segmentation',
            created,
            updated: Math.max(...images.map((i) => i.created)),
            annotation: 'shapes',
            classes: manifest.classes,
            colors: manifest.colors,
            images,
            versions: [
              { number: 1, name: 'raw', created, images: ids, preprocessing: {}, augmentation: {} },
              {
                number: 2,
                name: 'shapes-256',
                created: created + 86_400_000,
                images: ids,
                preprocessing: { 'auto-orient': { enabled: true }, resize: { enabled: true, format: 'Stretch to', width: '256', height: '256' } },
                augmentation: { flip: { enabled: true, horizontal: true, vertical: true }, rotate: { enabled: true, degrees: 90 } },
                model: { dir: options.modelDir, modelType: 'edgeseg-shapes' },
              },
            ],
          },
        ],
      },
    ],
  };
}
