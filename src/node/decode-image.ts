// Where server/ imports Node's image decoding from; the code is in src/decode/decode-node.ts.
export { decodeImage, DEFAULT_MAX_PIXELS, type DecodeOptions } from '../decode/decode-node.js';
