// A segmentation worker whose module is evaluated a second time after its first message (the load), as
// WebKit does in a bundled app when onnxruntime-web imports its own code (the worker's script) by URL.
import '../../../workers/segment-worker.ts';

self.addEventListener(
  'message',
  () => void import(/* @vite-ignore */ new URL('../../../workers/segment-worker.ts?again', import.meta.url).href),
  { once: true },
);
