// Which libvips image loaders this process may use: the allow-list's, and no other. Its own module, so
// that the Node entry's type declarations name sharp's and onnxruntime-node's types nowhere (they are
// loaded by native-modules.ts, whose declarations would otherwise come with this function's).
import type { ImageFormat } from '../decode/image-header.js';
import { sharp } from './native-modules.js';

/** libvips's loader (with its buffer, file and source subclasses) for each format of the allow-list. */
const LOADERS: Record<ImageFormat, string> = {
  jpeg: 'VipsForeignLoadJpeg',
  png: 'VipsForeignLoadPng',
  webp: 'VipsForeignLoadWebp',
  gif: 'VipsForeignLoadNsgif',
  avif: 'VipsForeignLoadHeif',
  tiff: 'VipsForeignLoadTiff',
};

/**
 * Defence in depth behind the allow-list of src/decode/image-header.ts, which refuses other formats
 * before libvips sees them: every other libvips loader (SVG, PDF, ImageMagick, OpenSlide, FITS, PPM, the
 * .v format…) is blocked in this process, so that a gap in that check cannot reach them. Process-wide (it
 * is libvips's own switch): the command line and the local platform call it for their processes; a
 * program that imports edgeseg/node decides for itself.
 */
export function restrictImageLoaders(): void {
  sharp.block({ operation: ['VipsForeignLoad'] });
  sharp.unblock({ operation: Object.values(LOADERS) });
}
