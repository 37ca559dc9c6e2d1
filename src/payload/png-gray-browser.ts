// Reading a mask PNG with the browser's own decoder, so that the page's main thread carries no inflate
// or PNG code (the hosted backend's segmentRaw runs there). Chromium decodes colour type 0 to R = G = B
// = the stored byte when colour management is off, which the browser tests check against upng.
import { InvalidInputError } from '../errors/index.js';
import { base64ToBytes } from './base64.js';
import { readMaskHeader } from './png-header.js';
import type { RawSegmentation, SegmentationPayload } from './types.js';

export async function decodeMaskPngInBrowser(png: Uint8Array): Promise<{ classIds: Uint8Array; width: number; height: number }> {
  const { width, height } = readMaskHeader(png);
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(new Blob([png as BlobPart], { type: 'image/png' }), {
      premultiplyAlpha: 'none',
      colorSpaceConversion: 'none',
    });
  } catch (cause) {
    throw new InvalidInputError('PAYLOAD_INVALID', 'the segmentation mask is not a readable PNG', { cause });
  }
  try {
    const context = new OffscreenCanvas(width, height).getContext('2d', { willReadFrequently: true })!;
    context.drawImage(bitmap, 0, 0);
    const rgba = context.getImageData(0, 0, width, height, { colorSpace: 'srgb' }).data;
    const classIds = new Uint8Array(width * height);
    for (let p = 0; p < classIds.length; p++) classIds[p] = rgba[p * 4]!;
    return { classIds, width, height };
  } finally {
    bitmap.close();
  }
}

/** The class ids of a payload, decoded by the browser. */
export async function rawFromPayloadInBrowser(payload: SegmentationPayload): Promise<RawSegmentation> {
  const { classIds, width, height } = await decodeMaskPngInBrowser(base64ToBytes(payload.segmentation_mask));
  return { classIds, width, height, class_map: payload.class_map };
}
