// The smallest page that uses edgeseg: what it loads before the worker starts is the size we measure.
import { createSegmenter } from 'edgeseg';

const seg = await createSegmenter({ model: '/models/shapes/' });
document.body.textContent = JSON.stringify((await seg.segment('/image.jpg')).image);
