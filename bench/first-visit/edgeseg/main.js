// An app with the packed edgeseg on a first visit: the people model on WASM, one image, segmentRaw()'s
// class ids (1 = person). Published as ../report.ts does; bench/run/first-visit.ts builds it with Vite
// and fills in how the app names the people model (MODEL_IMPORT).
import { createSegmenter } from 'edgeseg';
/* MODEL_IMPORT */

const threads = Number(new URLSearchParams(location.search).get('threads'));

async function firstMask() {
  const image = fetch('/person.jpg').then((r) => r.blob());
  // eslint-disable-next-line no-undef -- declared by MODEL_IMPORT
  const seg = await createSegmenter({ model: people, backends: ['wasm'], numThreads: threads });
  const ready = performance.now();
  const { classIds, width, height } = await seg.segmentRaw(await image);
  return { ms: performance.now(), ready, stages: { ...seg.lastTimings }, width, height, ids: Array.from(classIds) };
}

firstMask().then(
  (outcome) => (window.firstMask = outcome),
  (error) => (window.firstMask = { error: `${error.name}: ${error.message}` }),
);
