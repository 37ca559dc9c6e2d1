// A user's app that runs one bundled model, imported as the docs say (`edgeseg/models/people`), on the
// photo in its public folder, and publishes the outcome on `window.edgesegResult` for the test that drives it.
import { createSegmenter } from 'edgeseg';
import people from 'edgeseg/models/people';

async function run() {
  const result = { isolated: globalThis.crossOriginIsolated === true };
  try {
    const seg = await createSegmenter({ model: people, backends: ['wasm'] });
    try {
      const image = await (await fetch(new URL('photo.png', document.baseURI))).blob();
      const payload = await seg.segment(image);
      Object.assign(result, { payload, backend: seg.backend, numThreads: seg.numThreads, fallbacks: [...seg.fallbacks] });
    } finally {
      await seg.dispose();
    }
  } catch (error) {
    result.failed = { name: error.name, code: error.code, message: error.message };
  }
  return result;
}

run().then((result) => {
  window.edgesegResult = result;
  document.querySelector('#status').textContent = 'done';
});
