// The one check every mask reader makes before decoding: a PNG whose IHDR says 8-bit grayscale.
import { InvalidInputError } from '../errors/index.js';

export const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const IHDR = [0x49, 0x48, 0x44, 0x52];

/** Width and height from a mask PNG's header; throws `PAYLOAD_INVALID` unless it is colour type 0, depth 8. */
export function readMaskHeader(png: Uint8Array): { width: number; height: number } {
  // Signature (8), IHDR length (4) and type (4), then width, height, depth, colour type, …
  const isPng = png.length >= 33 && PNG_SIGNATURE.every((b, i) => png[i] === b) && IHDR.every((b, i) => png[12 + i] === b);
  if (!isPng) throw new InvalidInputError('PAYLOAD_INVALID', 'the segmentation mask is not a readable PNG');
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const [depth, colourType] = [png[24]!, png[25]!];
  if (colourType !== 0 || depth !== 8) {
    throw new InvalidInputError(
      'PAYLOAD_INVALID',
      `the segmentation mask must be an 8-bit grayscale PNG (colour type 0), got colour type ${colourType}, depth ${depth}`,
    );
  }
  return { width: view.getUint32(16), height: view.getUint32(20) };
}
