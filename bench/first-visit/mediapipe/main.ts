// MediaPipe tasks-vision's ImageSegmenter on a first visit, as its guide sets it up: the vision Wasm
// fileset, the same selfie .tflite as the other pages, the CPU delegate (XNNPACK), one image; its
// confidence mask (at the image's size) thresholded at 0.5. Files from @mediapipe/tasks-vision and
// @mediapipe/selfie_segmentation, served from this page's host.
import { FilesetResolver, ImageSegmenter } from '@mediapipe/tasks-vision';
import { publish } from '../report.js';

publish(async (ready) => {
  const image = fetch('/person.jpg').then((r) => r.blob());
  const fileset = await FilesetResolver.forVisionTasks('/mediapipe');
  const segmenter = await ImageSegmenter.createFromOptions(fileset, {
    baseOptions: { modelAssetPath: '/selfie_segmentation.tflite', delegate: 'CPU' },
    runningMode: 'IMAGE',
    outputConfidenceMasks: true,
    outputCategoryMask: false,
  });
  ready();
  const bitmap = await createImageBitmap(await image);
  const result = segmenter.segment(bitmap);
  const mask = result.confidenceMasks![0]!;
  const probabilities = mask.getAsFloat32Array();
  const ids = new Uint8Array(probabilities.length);
  for (let p = 0; p < ids.length; p++) ids[p] = probabilities[p]! >= 0.5 ? 1 : 0;
  const size = { width: mask.width, height: mask.height };
  result.close();
  return { ids, ...size };
});
