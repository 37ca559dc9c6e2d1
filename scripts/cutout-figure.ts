// Draws docs/images/cutout-edges.png: a piece of a people photo cut out with the hard mask and with the
// soft alpha, side by side at 3× zoom over a flat colour, so that the two edges can be compared.
//
//   npx tsx scripts/cutout-figure.ts [--photo models/people/samples/images/grace_hopper.jpg] [--at x,y,w,h]
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import sharp, { type OverlayOptions } from 'sharp';
import { cutoutRgba, maskAlpha } from '../src/cli/cutout.js';
import { createSegmenter } from '../src/node/index.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { photo: { type: 'string' }, at: { type: 'string' }, out: { type: 'string' } } });
const photo = values.photo ?? join(ROOT, 'models/people/samples/images/grace_hopper.jpg');
const [cx, cy, cw, ch] = (values.at ?? '300,170,110,120').split(',').map(Number) as [number, number, number, number];
const out = values.out ?? join(ROOT, 'docs/images/cutout-edges.png');
const ZOOM = 3;
const BACKDROP = [46, 139, 87] as const;
const LABEL = 28;
const GAP = 8;

const seg = await createSegmenter({ model: 'people', numThreads: 1 });
const { raw, image } = await seg.segmentDetailed(await readFile(photo), { alpha: true });
const hard = maskAlpha(raw.classIds, seg.spec.backgroundClassId);
await seg.dispose();

/** The crop of a cutout over the backdrop, scaled 3× with each pixel a square (nearest neighbour). */
async function panel(alpha: Uint8Array): Promise<Buffer> {
  const rgba = cutoutRgba(image, alpha);
  const flat = new Uint8Array(cw * ch * 3);
  for (let y = 0; y < ch; y++) {
    for (let x = 0; x < cw; x++) {
      const s = ((cy + y) * image.width + cx + x) * 4;
      const a = rgba[s + 3]! / 255;
      for (let c = 0; c < 3; c++) flat[(y * cw + x) * 3 + c] = Math.round(rgba[s + c]! * a + BACKDROP[c]! * (1 - a));
    }
  }
  return sharp(flat, { raw: { width: cw, height: ch, channels: 3 } })
    .resize(cw * ZOOM, ch * ZOOM, { kernel: 'nearest' })
    .png()
    .toBuffer();
}

const label = (text: string, width: number) =>
  Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${LABEL}"><rect width="100%" height="100%" fill="white"/>` +
      `<text x="6" y="19" font-family="DejaVu Sans, sans-serif" font-size="15" fill="#222">${text}</text></svg>`,
  );

const [pw, ph] = [cw * ZOOM, ch * ZOOM];
const panels = [
  { alpha: hard, text: 'hard mask (--edges hard)' },
  { alpha: raw.alpha!, text: 'soft alpha (--cutout, the default)' },
];
const layers: OverlayOptions[] = [];
for (const [i, p] of panels.entries()) {
  const left = i * (pw + GAP);
  layers.push({ input: label(p.text, pw), left, top: 0 });
  layers.push({ input: await panel(p.alpha), left, top: LABEL });
}
await mkdir(dirname(out), { recursive: true });
await sharp({ create: { width: panels.length * pw + GAP, height: ph + LABEL, channels: 3, background: '#ffffff' } })
  .composite(layers)
  .png({ palette: true, colours: 256, effort: 10 })
  .toFile(out);
console.log(`${out}: ${panels.length * pw + GAP}×${ph + LABEL}, ${cw}×${ch} pixels of ${photo} at (${cx}, ${cy}), ${ZOOM}× zoom`);
