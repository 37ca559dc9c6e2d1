// Tells an ONNX model's bytes (a protobuf ModelProto) from anything else before the runtime is handed them,
// so that an HTML page, a JSON error or a truncated download is a clear error, not the runtime's; and refuses
// a model that keeps tensor data in external files, which the runtime would read from the local disk.
import { ModelPackageError } from '../errors/index.js';
import { isHtmlPage } from '../decode/html-page.js';
import { fieldsOf, type Field } from './protobuf.js';
import { TENSOR_FIELDS, TENSOR_PATHS, type TensorHolder } from './onnx-tensor-paths.js';

/** ModelProto's fields and the wire type each must have (2: length-delimited, 0: varint). */
const MODEL_FIELDS: Record<number, number> = {
  1: 0, // ir_version
  2: 2, // producer_name
  3: 2, // producer_version
  4: 2, // domain
  5: 0, // model_version
  6: 2, // doc_string
  7: 2, // graph
  8: 2, // opset_import
  14: 2, // metadata_props
  20: 2, // training_info
  25: 2, // functions
  26: 2, // configuration
};

/**
 * Throws MODEL_LOAD_FAILED unless `bytes` parse, at the top level, as a ModelProto: every field within the
 * bytes, with the wire type its number has, and an `ir_version` and a `graph` among them. Only the top level
 * is walked (the graph is skipped by its length), so this costs nothing next to the download.
 */
export function checkOnnxModel(bytes: Uint8Array): void {
  const fail = (reason: string) =>
    new ModelPackageError('MODEL_LOAD_FAILED', `weights.onnx is not an ONNX model: ${reason}${describeText(bytes)}`);
  let fields: Field[];
  try {
    fields = fieldsOf(bytes);
  } catch (error) {
    throw fail((error as Error).message);
  }
  for (const { number, wireType } of fields) {
    const expected = MODEL_FIELDS[number];
    if (expected !== undefined && expected !== wireType) throw fail(`field ${number} has wire type ${wireType}`);
  }
  const has = (number: number) => fields.some((f) => f.number === number);
  if (!has(1) || !has(7)) throw fail(`it has no ${has(1) ? 'graph' : 'ir_version'}`);
  refuseExternalData(fields);
}

/** Deeper than this, a model's subgraphs are refused rather than walked (no real model nests so). */
const MAX_NESTING = 64;

/**
 * Throws MODEL_LOAD_FAILED if any tensor of the model (an initializer, a constant in a node attribute or in a
 * function's attribute defaults, in a subgraph, a sparse tensor, training info: every field that ONNX's schema
 * lets hold one, from the generated table TENSOR_PATHS) has `data_location` other than DEFAULT or
 * `external_data` entries. A model package is one file: external data would make the runtime read a path the
 * model names (in Node, relative to the working directory: a hostile host's model could read `.env` as
 * weights). Large tensors are skipped by their length, so the walk costs little next to the download.
 */
function refuseExternalData(modelFields: Field[]): void {
  const refuse = (reason: string) =>
    new ModelPackageError(
      'MODEL_LOAD_FAILED',
      `weights.onnx keeps tensor data outside the file (${reason}); a model package is one file: save the model with its weights inside it (onnx.save(model, path) without save_as_external_data)`,
    );
  const walk = (fields: Field[], message: Exclude<TensorHolder, 'TensorProto'>, depth: number): void => {
    if (depth > MAX_NESTING) throw refuse(`its graphs nest deeper than ${MAX_NESTING} levels`);
    const paths: Readonly<Record<number, TensorHolder>> = TENSOR_PATHS[message];
    for (const field of fields) {
      const inner = paths[field.number];
      // A field of another wire type is one the runtime's parser skips as unknown, as it is skipped here.
      if (inner === undefined || field.wireType !== 2) continue;
      let innerFields: Field[];
      try {
        innerFields = fieldsOf(field.payload);
      } catch (error) {
        throw new ModelPackageError(
          'MODEL_LOAD_FAILED',
          `weights.onnx is not an ONNX model: a ${inner} in it is malformed: ${(error as Error).message}`,
        );
      }
      if (inner === 'TensorProto') checkTensor(innerFields, refuse);
      else walk(innerFields, inner, depth + 1);
    }
  };
  walk(modelFields, 'ModelProto', 0);
}

function checkTensor(fields: Field[], refuse: (reason: string) => Error): void {
  // Anything in data_location but a plain DEFAULT (0) counts as external: the runtime reads the enum as an int32,
  // so 2^32 + 1 or a padded varint would be EXTERNAL to it whatever this reader makes of them.
  const external = fields.some(
    (f) => f.number === TENSOR_FIELDS.externalData || (f.number === TENSOR_FIELDS.dataLocation && (f.wireType !== 0 || f.varint !== 0)),
  );
  if (!external) return;
  const text = (bytes: Uint8Array) => JSON.stringify(new TextDecoder().decode(bytes.subarray(0, 100)));
  const name = fields.find((f) => f.number === TENSOR_FIELDS.name && f.wireType === 2);
  // StringStringEntryProto: key 1, value 2; the entry whose key is `location` names the file.
  const location = fields
    .filter((f) => f.number === TENSOR_FIELDS.externalData && f.wireType === 2)
    .map((f) => {
      try {
        const entry = fieldsOf(f.payload);
        const key = entry.find((e) => e.number === 1);
        return key && new TextDecoder().decode(key.payload) === 'location' ? entry.find((e) => e.number === 2) : undefined;
      } catch {
        return undefined;
      }
    })
    .find((v) => v !== undefined);
  throw refuse(
    `tensor ${name ? text(name.payload) : '(unnamed)'}${location ? ` names the file ${text(location.payload)}` : ' is marked external'}`,
  );
}

/** What the bytes look like when they are text (an HTML page, a JSON error), for the message. */
function describeText(bytes: Uint8Array): string {
  if (isHtmlPage(bytes)) return ' (it is an HTML page)';
  if (/^[{[]/.test(new TextDecoder().decode(bytes.subarray(0, 64)).trimStart())) return ' (it is JSON text)';
  return '';
}
