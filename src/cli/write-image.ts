// Encoding pixels to the file a path names: the command line's single-image and batch outputs alike.
import { writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { sharp } from '../node/native-modules.js';

/** Writes RGB or RGBA pixels as JPEG (quality 92), lossless WebP or PNG, by the path's extension (PNG otherwise). */
export async function writeImage(path: string, pixels: Uint8Array, width: number, height: number, channels: 3 | 4): Promise<void> {
  const img = sharp(pixels, { raw: { width, height, channels } });
  const ext = extname(path).toLowerCase();
  const encoded =
    ext === '.jpg' || ext === '.jpeg' ? img.jpeg({ quality: 92 }) : ext === '.webp' ? img.webp({ lossless: true }) : img.png();
  await writeFile(path, await encoded.toBuffer());
}
