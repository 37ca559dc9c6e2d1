// A user's app: imports the packed edgeseg by name, segments one image, and publishes the outcome on
// `window.edgesegResult` for the test that drives the page. Query: model (a package URL), backends, threads, runtimeUrl, workerUrl, wasmPaths;
// noJspi plays an engine without JSPI (Safari 26), whose WebGPU runs onnxruntime-web's asyncify build.
import { createSegmenter } from 'edgeseg';

const query = new URLSearchParams(location.search);
if (query.has('noJspi')) delete WebAssembly.Suspending;

async function segmentOnce(options) {
  const seg = await createSegmenter({
    model: query.get('model') ?? new URL('model/', document.baseURI).href,
    backends: ['wasm'],
    ...options,
  });
  try {
    const image = await (await fetch(new URL('image.jpg', document.baseURI))).blob();
    const payload = await seg.segment(image);
    return { payload, backend: seg.backend, numThreads: seg.numThreads, fallbacks: [...seg.fallbacks] };
  } finally {
    await seg.dispose();
  }
}

async function run() {
  const options = {};
  // backends=default: the entry's own default order.
  if (query.has('backends')) options.backends = query.get('backends') === 'default' ? undefined : query.get('backends').split(',');
  if (query.has('threads')) options.numThreads = Number(query.get('threads'));
  if (query.has('runtimeUrl')) options.runtimeUrl = query.get('runtimeUrl');
  if (query.has('workerUrl')) options.workerUrl = query.get('workerUrl');
  if (query.has('wasmPaths')) options.wasmPaths = query.get('wasmPaths');
  const result = { isolated: globalThis.crossOriginIsolated === true };
  try {
    Object.assign(result, await segmentOnce(options));
  } catch (error) {
    result.error = { name: error.name, code: error.code, message: error.message };
    // The page keeps working: the same app with the defaults still segments.
    try {
      Object.assign(result, await segmentOnce({}));
    } catch (again) {
      result.failed = { name: again.name, code: again.code, message: again.message };
    }
  }
  return result;
}

run().then((result) => {
  window.edgesegResult = result;
  document.querySelector('#status').textContent = 'done';
});
