// Grayscale as the reference does it: OpenCV's 8-bit BGR2GRAY fixed point, one plane for all three channels.
import { densePlane, type ImagePlane } from './image-plane.js';

// cv2.cvtColor(COLOR_BGR2GRAY) on 8-bit data in OpenCV 4: coefficients scaled by 2^15, rounded
// (RY15, GY15, BY15), with rounding before the shift.
const R = 9798;
const G = 19235;
const B = 3735;
const SHIFT = 15;

/** One gray plane; the reference stacks it to three identical channels, which later steps honour. */
export function toGrayscale(src: ImagePlane): ImagePlane {
  const { width, height, channels, rowStride, offset, data } = src;
  const out = new Uint8Array(width * height);
  if (channels === 1) {
    for (let y = 0; y < height; y++) out.set(data.subarray(offset + y * rowStride, offset + y * rowStride + width), y * width);
    return densePlane(out, width, height, 1);
  }
  for (let y = 0; y < height; y++) {
    let i = offset + y * rowStride;
    let o = y * width;
    for (let x = 0; x < width; x++, i += channels) {
      out[o++] = (data[i]! * R + data[i + 1]! * G + data[i + 2]! * B + (1 << (SHIFT - 1))) >> SHIFT;
    }
  }
  return densePlane(out, width, height, 1);
}
