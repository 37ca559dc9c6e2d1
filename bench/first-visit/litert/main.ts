// The LiteRT.js app path on a first visit: LiteRT's Wasm (XNNPACK, threaded where the page is isolated),
// the original selfie .tflite, and the app's canvas code around it (bench/web/litert-app.ts), as the
// people section measures it warm. Files from @litertjs/core and @mediapipe/selfie_segmentation, served
// from this page's host.
import { liteRtRunner } from '../../../models/people/parity/runtimes.js';
import { liteRtMasks } from '../../web/litert-app.js';
import { publish, query } from '../report.js';

publish(async (ready) => {
  const image = fetch('/person.jpg').then((r) => r.blob());
  const [height, width] = [Number(query.get('height')), Number(query.get('width'))];
  const run = await liteRtRunner('/selfie_segmentation.tflite', '/litert/', height, width, Number(query.get('threads')));
  ready();
  const bitmap = await createImageBitmap(await image);
  const ids = await liteRtMasks(run, height, width)(bitmap);
  return { ids, width: bitmap.width, height: bitmap.height };
});
