// What an app writes around LiteRT.js to get a person mask at the image's size: canvas stretch to the
// network's size, bytes → float NHWC ÷255, run (the .tflite ends in its own sigmoid), threshold at 0.5,
// then the mask upscaled to the image by the canvas (bilinear) and thresholded again into one class id
// per pixel, as segmentRaw() returns. Shared by the bench page (litertApp) and the first-visit page.
import type { Runner } from '../../models/people/parity/runtimes.js';
import { nhwcFromRgba } from '../../models/people/parity/tensors.js';

/** A mask maker for one network size; its canvases are kept from call to call, as an app keeps them. */
export function liteRtMasks(run: Runner, netHeight: number, netWidth: number): (bitmap: ImageBitmap) => Promise<Uint8Array> {
  const small = new OffscreenCanvas(netWidth, netHeight).getContext('2d', { willReadFrequently: true })!;
  const mask = new ImageData(netWidth, netHeight);
  const maskCanvas = new OffscreenCanvas(netWidth, netHeight).getContext('2d')!;
  let full: OffscreenCanvasRenderingContext2D | null = null;
  return async (bitmap) => {
    const { width, height } = bitmap;
    small.drawImage(bitmap, 0, 0, netWidth, netHeight);
    const probabilities = await run(nhwcFromRgba(small.getImageData(0, 0, netWidth, netHeight).data, netHeight, netWidth));
    for (let p = 0; p < probabilities.length; p++) mask.data[4 * p + 3] = probabilities[p]! >= 0.5 ? 255 : 0;
    if (!full || full.canvas.width !== width || full.canvas.height !== height)
      full = new OffscreenCanvas(width, height).getContext('2d', { willReadFrequently: true })!;
    maskCanvas.putImageData(mask, 0, 0);
    full.clearRect(0, 0, width, height);
    full.drawImage(maskCanvas.canvas, 0, 0, width, height);
    const up = full.getImageData(0, 0, width, height).data;
    const ids = new Uint8Array(width * height);
    for (let p = 0; p < ids.length; p++) ids[p] = up[4 * p + 3]! >= 128 ? 1 : 0;
    return ids;
  };
}
