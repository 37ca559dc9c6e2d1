// weights.onnx as edgeseg hands it to a runtime: read and checked here, then written again from what was read
// (onnx-wire.ts), so that no byte the check did not understand reaches onnxruntime. Tells a model from what
// hosts and broken downloads give instead (an HTML page, a JSON error, half a file), and refuses a model that
// would make the runtime read a file (external tensor data, compiled execution-provider contexts).
import { ModelPackageError } from '../errors/index.js';
import { isHtmlPage } from '../decode/html-page.js';
import type { ModelProto } from './onnx-schema.js';
import { decodeModel, encodeModel, WireError, type DecodedModel } from './onnx-wire.js';

/** A model as edgeseg read it: the decoded graph, and the bytes a runtime gets (written from it, on demand). */
export interface OnnxModel {
  readonly proto: ModelProto;
  /** The model in protobuf's canonical encoding, written from `proto` (once; later calls return the same bytes). */
  bytes(): Uint8Array;
}

/**
 * Reads `bytes` as onnxruntime would and checks what it read: a ModelProto with an `ir_version` and a `graph`,
 * no tensor kept outside the file, no execution-provider context. Throws MODEL_LOAD_FAILED saying what the
 * bytes are instead. The cost is one pass over the bytes (large tensors are kept as views, not copied), within
 * the limits of onnx-wire.ts (messages, nesting).
 */
export function readOnnxModel(bytes: Uint8Array): OnnxModel {
  const fail = (reason: string) =>
    new ModelPackageError('MODEL_LOAD_FAILED', `weights.onnx is not an ONNX model: ${reason}${describeText(bytes)}`);
  let decoded: DecodedModel;
  try {
    decoded = decodeModel(bytes);
  } catch (error) {
    if (error instanceof WireError) throw fail(error.message);
    throw error;
  }
  const { model } = decoded;
  if (model.ir_version === undefined || model.graph === undefined)
    throw fail(`it has no ${model.ir_version === undefined ? 'ir_version' : 'graph'}`);
  refuseExternalData(decoded);
  refuseExecutionProviderContexts(decoded);
  return onnxModel(model);
}

/** A model to hand to a runtime, from a ModelProto (one read by readOnnxModel, or a graph changed from it). */
export function onnxModel(proto: ModelProto): OnnxModel {
  let written: Uint8Array | undefined;
  return {
    proto,
    bytes: () => (written ??= encodeModel(proto)),
  };
}

/**
 * Refuses any tensor of the model (an initializer, a constant in an attribute, a function's attribute default,
 * a subgraph's, a sparse tensor's, training info's: every TensorProto the reader met) with `data_location`
 * EXTERNAL or `external_data` entries. A model package is one file: external data would make the runtime
 * read a path the model names (in Node, relative to the working directory: a hostile host's model could
 * read `.env` as weights; with onnxruntime's in-memory tag, an address).
 */
function refuseExternalData({ tensors }: DecodedModel): void {
  for (const tensor of tensors) {
    const entries = (tensor.external_data as { key?: string; value?: string }[] | undefined) ?? [];
    if (entries.length === 0 && (tensor.data_location ?? 0) === 0) continue;
    const name = typeof tensor.name === 'string' ? JSON.stringify(tensor.name.slice(0, 100)) : '(unnamed)';
    const location = entries.find((e) => e.key === 'location')?.value;
    throw new ModelPackageError(
      'MODEL_LOAD_FAILED',
      `weights.onnx keeps tensor data outside the file (tensor ${name}${location !== undefined ? ` names the file ${JSON.stringify(location.slice(0, 100))}` : ' is marked external'}); a model package is one file: save the model with its weights inside it (onnx.save(model, path) without save_as_external_data)`,
    );
  }
}

/**
 * An `EPContext` node holds a model compiled for one execution provider (QNN, OpenVINO, TensorRT…), often as
 * a path to a file beside the model. edgeseg's runtimes run none of them; refused by name, not left to the
 * runtime, so no path in it is ever opened.
 */
function refuseExecutionProviderContexts({ nodes }: DecodedModel): void {
  const context = nodes.find((node) => node.op_type === 'EPContext');
  if (!context) return;
  throw new ModelPackageError(
    'MODEL_LOAD_FAILED',
    "weights.onnx holds an EPContext node (a model compiled for one execution provider, such as QNN or OpenVINO); edgeseg runs ONNX graphs: export the model's own graph",
  );
}

/** What the bytes are when they are something else a model could come as, or text, for the message. */
function describeText(bytes: Uint8Array): string {
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (ascii(4, 8) === 'TFL3') return ' (it is a TensorFlow Lite model: convert it to ONNX first, e.g. with tf2onnx --tflite)';
  if (ascii(4, 8) === 'ORTM') return " (it is in onnxruntime's own ORT format: give the .onnx file it was converted from)";
  if (ascii(0, 4) === 'PK\x03\x04') return ' (it is a ZIP archive, as PyTorch saves checkpoints: export the model with torch.onnx.export)';
  if (ascii(0, 4) === '\x89HDF') return ' (it is an HDF5 file, as Keras saves models: convert it to ONNX first, e.g. with tf2onnx)';
  if (ascii(8, 10) === '{"') return ' (it looks like a safetensors file: weights without a graph; export the model with torch.onnx.export)';
  if (isHtmlPage(bytes)) return ' (it is an HTML page)';
  if (/^[{[]/.test(new TextDecoder().decode(bytes.subarray(0, 64)).trimStart())) return ' (it is JSON text)';
  return '';
}
