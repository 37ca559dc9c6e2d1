// Version exports, built on demand as zips: the platform's `png-mask-semantic` layout and COCO
// segmentation. Each is built once per version and format, and downloaded through an unguessable link.
import { randomBytes } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { zipSync, type Zippable } from 'fflate';
import { decodeMaskPng } from '../src/payload/index.js';
import { badRequest } from './http.js';
import { writeAtomic, type ImageState, type ProjectState, type Store, type VersionState, type WorkspaceState } from './store.js';

export const EXPORT_FORMATS = ['png-mask-semantic', 'coco-segmentation'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The download token for this version's export, building the zip the first time. */
export async function exportToken(
  store: Store,
  ws: WorkspaceState,
  project: ProjectState,
  version: VersionState,
  format: string,
): Promise<string> {
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw badRequest(`export format ${JSON.stringify(format)} is not available here`, `formats: ${EXPORT_FORMATS.join(', ')}`);
  }
  const file = `exports/${ws.url}-${project.url}-${version.number}-${format}.zip`;
  const existing = Object.entries(store.state.exports).find(([, e]) => e.file === file);
  if (existing && (await stat(store.path(file)).catch(() => null))) return existing[0];
  const images = project.images.filter((i) => version.images.includes(i.id) && i.split && i.mask);
  const zip =
    format === 'png-mask-semantic' ? await pngMaskSemantic(store, project, images) : await cocoSegmentation(store, project, images);
  await writeAtomic(store.path(file), zipSync(zip, { level: 6 }));
  const token = randomBytes(16).toString('hex');
  await store.update((s) => {
    s.exports[token] = { file, created: Date.now() };
  });
  return token;
}

const stem = (name: string) => name.replace(/\.[^.]+$/, '');

/** `{split}/{image}`, `{split}/{image}_mask.png` (8-bit class ids), `{split}/_classes.csv`. */
async function pngMaskSemantic(store: Store, project: ProjectState, images: ImageState[]): Promise<Zippable> {
  const zip: Record<string, Zippable> = {};
  const csv = `Pixel Value, Class\n${project.classes.map((c, i) => `${i}, ${c}`).join('\n')}\n`;
  for (const image of images) {
    const folder = (zip[image.split!] ??= { '_classes.csv': new TextEncoder().encode(csv) }) as Record<string, Uint8Array>;
    folder[image.name] = new Uint8Array(await readFile(store.path(image.file)));
    folder[`${stem(image.name)}_mask.png`] = new Uint8Array(await readFile(store.path(image.mask!)));
  }
  return zip;
}

/**
 * `{split}/{image}` and `{split}/_annotations.coco.json`: one annotation per class present in an image,
 * its pixels as an uncompressed COCO RLE (column-major counts, starting with a run of zeros), with area and
 * bounding box. Category ids are the class ids; the background class is not a category.
 */
async function cocoSegmentation(store: Store, project: ProjectState, images: ImageState[]): Promise<Zippable> {
  const background = project.classes.indexOf('background');
  const categories = project.classes
    .map((name, id) => ({ id, name, supercategory: project.annotation }))
    .filter((c) => c.id !== background);
  const zip: Record<string, Record<string, Uint8Array>> = {};
  const docs: Record<string, { images: unknown[]; annotations: unknown[] }> = {};
  let annotationId = 1;
  for (const [n, image] of images.entries()) {
    const split = image.split!;
    (zip[split] ??= {})[image.name] = new Uint8Array(await readFile(store.path(image.file)));
    const doc = (docs[split] ??= { images: [], annotations: [] });
    const imageId = n;
    doc.images.push({
      id: imageId,
      file_name: image.name,
      width: image.width,
      height: image.height,
      date_captured: new Date(image.created).toISOString(),
    });
    const { classIds, width, height } = decodeMaskPng(new Uint8Array(await readFile(store.path(image.mask!))));
    for (const category of categories) {
      const rle = columnMajorRle(classIds, width, height, category.id);
      if (!rle) continue;
      doc.annotations.push({
        id: annotationId++,
        image_id: imageId,
        category_id: category.id,
        segmentation: { counts: rle.counts, size: [height, width] },
        area: rle.area,
        bbox: rle.bbox,
        iscrowd: 0,
      });
    }
  }
  for (const [split, doc] of Object.entries(docs)) {
    const coco = { info: { description: `${project.name} (edgeseg local platform)`, version: '1.0' }, licenses: [], categories, ...doc };
    zip[split]!['_annotations.coco.json'] = new TextEncoder().encode(JSON.stringify(coco));
  }
  return zip;
}

function columnMajorRle(ids: Uint8Array, width: number, height: number, value: number) {
  const counts: number[] = [];
  let current = 0;
  let run = 0;
  let area = 0;
  let x0 = width;
  let y0 = height;
  let x1 = -1;
  let y1 = -1;
  for (let x = 0; x < width; x++) {
    for (let y = 0; y < height; y++) {
      const on = ids[y * width + x] === value ? 1 : 0;
      if (on) {
        area++;
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
      if (on === current) run++;
      else {
        counts.push(run);
        run = 1;
        current = on;
      }
    }
  }
  counts.push(run);
  return area === 0 ? null : { counts, area, bbox: [x0, y0, x1 - x0 + 1, y1 - y0 + 1] };
}
