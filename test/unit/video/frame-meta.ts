// The preprocessing of a 640×480 frame into a 256×256 network input, for the video tests to vary.
import type { PreprocessMeta } from '../../../src/pipeline/index.js';

export const frameMeta = (over: Partial<PreprocessMeta>): PreprocessMeta => ({
  originalWidth: 640,
  originalHeight: 480,
  cropX: 0,
  cropY: 0,
  cropWidth: 640,
  cropHeight: 480,
  inputWidth: 256,
  inputHeight: 256,
  padLeft: 0,
  padTop: 0,
  padRight: 0,
  padBottom: 0,
  ...over,
});
