// Encoding pixels to the file a path names: the command line's single-image and batch outputs alike.
import { writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { sharp } from '../node/native-modules.js';

/** RGB or RGBA pixels encoded as the path's extension asks: JPEG (quality 92), lossless WebP or PNG (otherwise). */
export async function encodeImage(path: string, pixels: Uint8Array, width: number, height: number, channels: 3 | 4): Promise<Buffer> {
  const img = sharp(pixels, { raw: { width, height, channels } });
  const ext = extname(path).toLowerCase();
  const encoded =
    ext === '.jpg' || ext === '.jpeg' ? img.jpeg({ quality: 92 }) : ext === '.webp' ? img.webp({ lossless: true }) : img.png();
  return encoded.toBuffer();
}

/** Writes RGB or RGBA pixels to `path`, encoded by its extension (see encodeImage). */
export async function writeImage(path: string, pixels: Uint8Array, width: number, height: number, channels: 3 | 4): Promise<void> {
  await writeFile(path, await encodeImage(path, pixels, width, height, channels));
}
