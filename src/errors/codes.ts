// The stable `code` strings of edgeseg's runtime and model errors: callers branch on these, never on messages.

/** Problems with what the caller passed in (an image, an option). */
export type InvalidInputCode =
  /** The bytes are not a decodable image: corrupt, truncated, or a header that says a zero or negative size. */
  | 'IMAGE_DECODE_FAILED'
  /** The source is empty (0 bytes, or decoded pixels that are 0×0). */
  | 'IMAGE_EMPTY'
  /** The bytes are not JPEG, PNG, WebP, GIF, AVIF or TIFF (or TIFF in a browser that has no decoder for it). */
  | 'IMAGE_FORMAT_UNSUPPORTED'
  /** The image has more pixels than `maxPixels` allows (default 50 megapixels). */
  | 'IMAGE_TOO_LARGE'
  /** The value given as an image source is of no supported kind. */
  | 'IMAGE_SOURCE_INVALID'
  /** `confidence` is not a finite number in [0, 100]. */
  | 'CONFIDENCE_INVALID'
  /** Any other option that is out of range or of the wrong type. */
  | 'OPTION_INVALID'
  /** A bundled model's name given as a string in the browser: import it (`import people from 'edgeseg/models/people'`) and pass that value. */
  | 'MODEL_NOT_IMPORTED'
  /** A model written as a word that names no bundled model; the message lists the names there are. */
  | 'MODEL_NAME_UNKNOWN'
  /** createVideoEffect's process() was given something that is not a video MediaStreamTrack. */
  | 'TRACK_NOT_VIDEO'
  /** createVideoEffect's process() was given a track that has ended. */
  | 'TRACK_ENDED'
  /** process() was called while the video effect is processing a track already. */
  | 'VIDEO_BUSY'
  /** A segmentation payload (or its mask PNG) is malformed: not the hosted route's shape, or a mask that does not decode to the stated size. */
  | 'PAYLOAD_INVALID';

/** Problems with a model package. */
export type ModelPackageCode =
  /** A file the package needs (weights.onnx, environment.json or inference_config.json, class_names.txt) is missing. */
  | 'MODEL_FILE_MISSING'
  /** A JSON file of the package does not parse. */
  | 'MODEL_JSON_MALFORMED'
  /** The package's configuration parses but is not usable (wrong types, unknown values). */
  | 'MODEL_CONFIG_INVALID'
  /** `class_names.txt` lists no class. */
  | 'MODEL_NO_CLASSES'
  /** More than 256 classes cannot be written to an 8-bit mask. */
  | 'MODEL_TOO_MANY_CLASSES'
  /** The ONNX input is not `[1, 3, H, W]` float32, or disagrees with the package's input size. */
  | 'MODEL_INPUT_SHAPE'
  /** The ONNX output is not `[1, C, h, w]` with C equal to the classes, the classes − 1, or 1. */
  | 'MODEL_OUTPUT_SHAPE'
  /** The model's bytes could not be loaded by the runtime (not an ONNX model, unsupported operator). */
  | 'MODEL_LOAD_FAILED'
  /** Downloading the package failed. */
  | 'MODEL_DOWNLOAD_FAILED';

/** Problems with a backend (webgpu, wasm, native, hosted) or the worker that hosts it. */
export type BackendCode =
  /** The backend cannot run here at all (no WebGPU adapter, no SharedArrayBuffer, …). */
  | 'BACKEND_UNAVAILABLE'
  /** The backend failed while running (device lost, shader error, out of memory). */
  | 'BACKEND_FAILED'
  /** Every backend in the caller's list was tried and none could run. */
  | 'NO_BACKEND'
  /** A file of the browser runtime (the worker script, onnxruntime-web's module or WASM binary) answered 404, an error or something that is not that file (an HTML page); the message names the URL and the fix (`npx edgeseg copy-runtime`, `runtimeUrl`). */
  | 'RUNTIME_FILE_MISSING'
  /** A file of the browser runtime is there but not as shipped: cut short, of another size, or compressed without the `Content-Encoding` that says so; the message names the URL, what is wrong and the fix. */
  | 'RUNTIME_FILE_INVALID'
  /** The bundle has no `import.meta.url` (esbuild's IIFE format), so the runtime files' place is unknown; set `runtimeUrl` (after `npx edgeseg copy-runtime`). */
  | 'RUNTIME_URL_UNKNOWN'
  /** edgeseg/node or the command line runs where onnxruntime-node or sharp is not installed (optional peer dependencies); the message names the command to run. */
  | 'NATIVE_MODULE_MISSING'
  /** The worker died; the next call starts a new one. */
  | 'WORKER_CRASHED'
  /** The segmenter was disposed. */
  | 'DISPOSED';

/** The call was aborted through its `AbortSignal`. */
export type AbortedCode = 'ABORTED';

/**
 * The local platform (`edgeseg serve`) refuses its data directory: it holds a symbolic link, a file or folder
 * of another user, or a folder that others may write to. The message names the path and the fix.
 */
export type LocalPlatformCode = 'DATA_DIR_UNSAFE';

/** Every `code` an {@link EdgesegError} may carry: branch on these, never on messages. */
export type EdgesegErrorCode = InvalidInputCode | ModelPackageCode | BackendCode | AbortedCode | LocalPlatformCode;
