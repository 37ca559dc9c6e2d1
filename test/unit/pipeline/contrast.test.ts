import { describe, expect, test } from 'vitest';
import {
  equalizeAdaptive,
  equalizeHistogram,
  planeOf,
  stretchContrast,
  toGrayscale,
  type ContrastType,
  type ImagePlane,
} from '../../../src/pipeline/index.js';
import { loadUint8, manifest } from '../../fixtures/reference/fixtures.js';

const steps: Record<ContrastType, (p: ImagePlane) => ImagePlane> = {
  'contrast-stretching': stretchContrast,
  'histogram-equalization': equalizeHistogram,
  'adaptive-equalization': equalizeAdaptive,
};

describe('contrast steps match scikit-image as the reference calls it', () => {
  for (const c of manifest.contrast) {
    test(c.name, () => {
      const [h, w] = c.src.shape;
      let plane = planeOf({ data: loadUint8(c.src), width: w, height: h, channels: 3 });
      // A gray case: edgeseg keeps one plane where the reference stacks three equal channels.
      if (c.gray) plane = toGrayscale(plane);
      const out = steps[c.kind](plane);
      // The reference's output is BGR; compare channel by channel.
      const expected = loadUint8(c.dst);
      let differing = 0;
      for (let p = 0; p < w * h; p++) {
        for (let ch = 0; ch < 3; ch++) {
          const ours = out.channels === 1 ? out.data[p]! : out.data[p * 3 + ch]!;
          if (ours !== expected[p * 3 + (2 - ch)]) differing++;
        }
      }
      expect(differing).toBe(0);
    });
  }
});

test('grayscale matches cv2.cvtColor(BGR2GRAY) on colour pixels', () => {
  // The gray cases' inputs are cv2's gray of the colour cases' inputs, stacked to three channels.
  const colour = manifest.contrast.find((x) => x.name === 'shapes-bgr-contrast-stretching')!;
  const gray = manifest.contrast.find((x) => x.name === 'shapes-gray-contrast-stretching')!;
  const [h, w] = colour.src.shape;
  const ours = toGrayscale(planeOf({ data: loadUint8(colour.src), width: w, height: h, channels: 3 }));
  const cv2Gray = loadUint8(gray.src);
  let differing = 0;
  for (let p = 0; p < w * h; p++) if (ours.data[p] !== cv2Gray[p * 3]) differing++;
  expect(differing).toBe(0);
});
