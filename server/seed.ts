// The default workspace: the shapes model's project (its sample images with their annotations, tags,
// splits and batches, a raw version and a version with the trained model) and the people project (photos
// of people, the bundled people models as its two versions).
import { chmod, copyFile, mkdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { createSegmenter } from '../src/node/segmenter.js';
import { decodeImage } from '../src/decode/decode-node.js';
import { decodeMaskPng } from '../src/payload/index.js';
import { imageEmbedding } from './embedding.js';
import { DIR_MODE, FILE_MODE } from './data-dir.js';
import type { ImageState, PlatformState, ProjectState } from './store.js';

export interface SeedOptions {
  apiKey: string;
  /** models/shapes/samples: manifest.json, images/, masks/. */
  samplesDir: string;
  /** The trained model's package folder, or `bundled` for the package's own. */
  modelDir: string;
  workspace?: string;
  project?: string;
  /** models/people/samples: manifest.json, images/ (public domain and CC0 photos, unannotated). */
  peopleSamplesDir: string;
}

export const DEFAULT_WORKSPACE = 'edgeseg-demo';
export const DEFAULT_PROJECT = 'shapes';
export const PEOPLE_PROJECT = 'people';

interface SampleManifest {
  classes: string[];
  colors: Record<string, string>;
  images: {
    id: string;
    name: string;
    file: string;
    mask: string;
    width: number;
    height: number;
    split: string;
    tags: string[];
    batch: string;
    created: number;
  }[];
}

export async function seedDefault(dataDir: string, options: SeedOptions): Promise<PlatformState> {
  const ws = options.workspace ?? DEFAULT_WORKSPACE;
  const project = options.project ?? DEFAULT_PROJECT;
  const manifest = JSON.parse(await readFile(join(options.samplesDir, 'manifest.json'), 'utf8')) as SampleManifest;
  const base = join('files', ws, project);
  await mkdir(join(dataDir, base, 'images'), { recursive: true, mode: DIR_MODE });
  await mkdir(join(dataDir, base, 'masks'), { recursive: true, mode: DIR_MODE });
  const background = manifest.classes.indexOf('background');
  const images: ImageState[] = [];
  for (const sample of manifest.images) {
    const file = join(base, 'images', `${sample.id}.jpg`);
    const mask = join(base, 'masks', `${sample.id}.png`);
    await copyPrivate(join(options.samplesDir, sample.file), join(dataDir, file));
    await copyPrivate(join(options.samplesDir, sample.mask), join(dataDir, mask));
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
                preprocessing: {
                  'auto-orient': { enabled: true },
                  resize: { enabled: true, format: 'Stretch to', width: '256', height: '256' },
                },
                augmentation: { flip: { enabled: true, horizontal: true, vertical: true }, rotate: { enabled: true, degrees: 90 } },
                model: { dir: options.modelDir, modelType: 'edgeseg-shapes' },
              },
            ],
          },
          await seedPeople(dataDir, ws, options.peopleSamplesDir),
        ],
      },
    ],
  };
}

/** A sample copied into the data directory as the server's other files are: its owner's alone (copyFile keeps the source's mode). */
async function copyPrivate(from: string, to: string): Promise<void> {
  await copyFile(from, to);
  await chmod(to, FILE_MODE);
}

interface PeopleManifest {
  classes: string[];
  colors: Record<string, string>;
  images: { id: string; name: string; file: string; width: number; height: number; license: string }[];
}

/**
 * The people project: the sample photos, unannotated (their classes and search embeddings are the people
 * model's output, as for any unannotated image), version 1 the general model, version 2 the landscape one.
 */
async function seedPeople(dataDir: string, ws: string, samplesDir: string): Promise<ProjectState> {
  const manifest = JSON.parse(await readFile(join(samplesDir, 'manifest.json'), 'utf8')) as PeopleManifest;
  const base = join('files', ws, PEOPLE_PROJECT);
  await mkdir(join(dataDir, base, 'images'), { recursive: true, mode: DIR_MODE });
  const background = manifest.classes.indexOf('background');
  // The images' dates: the day the conversion was published in this repository, a fixed instant so that
  // every seeded data directory is the same.
  const created = Date.UTC(2026, 10, 24);
  const seg = await createSegmenter({ model: 'people', numThreads: 1 });
  const images: ImageState[] = [];
  try {
    for (const [i, sample] of manifest.images.entries()) {
      const file = join(base, 'images', `${sample.id}${extname(sample.file)}`);
      await copyPrivate(join(samplesDir, sample.file), join(dataDir, file));
      const pixels = await decodeImage(await readFile(join(dataDir, file)));
      const ids = (await seg.segmentRaw(pixels)).classIds;
      const present = [...new Set(ids)].filter((c) => c !== background).sort((a, b) => a - b);
      images.push({
        id: `people-${sample.id}`,
        name: sample.name,
        file,
        width: sample.width,
        height: sample.height,
        split: null,
        tags: ['sample', sample.license],
        batch: 'samples',
        created: created + i * 1000,
        owner: 'edgeseg',
        classes: present.map((c) => manifest.classes[c]!),
        embedding: imageEmbedding(pixels.data as Uint8Array, ids, manifest.classes.length, background),
      });
    }
  } finally {
    await seg.dispose();
  }
  const ids = images.map((i) => i.id);
  const stretch = (width: number, height: number) => ({
    'auto-orient': { enabled: true },
    resize: { enabled: true, format: 'Stretch to', width: String(width), height: String(height) },
  });
  return {
    url: PEOPLE_PROJECT,
    name: 'People',
    type: 'semantic-segmentation',
    created,
    updated: created,
    annotation: 'people',
    classes: manifest.classes,
    colors: manifest.colors,
    images,
    versions: [
      {
        number: 1,
        name: 'selfie-general-256',
        created,
        images: ids,
        preprocessing: stretch(256, 256),
        augmentation: {},
        model: { dir: 'bundled:people', modelType: 'mediapipe-selfie-segmentation' },
      },
      {
        number: 2,
        name: 'selfie-landscape-256x144',
        created,
        images: ids,
        preprocessing: stretch(256, 144),
        augmentation: {},
        model: { dir: 'bundled:people-landscape', modelType: 'mediapipe-selfie-segmentation-landscape' },
      },
    ],
  };
}
