// The video path's edge refinement: the pure joint bilateral upsampling lives in src/pipeline, shared
// with stills (a still's soft alpha); re-exported here for the video modules that import it.
export { flatBlocks, REFINE, refineCoverage } from '../pipeline/edge-refinement.js';
