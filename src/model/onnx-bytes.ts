// Tells an ONNX model's bytes (a protobuf ModelProto) from anything else before the runtime is handed them,
// so that an HTML page, a JSON error or a truncated download is a clear error, not the runtime's.
import { ModelPackageError } from '../errors/index.js';
import { isHtmlPage } from '../decode/html-page.js';
import { fieldsOf, type Field } from './protobuf.js';

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
}

/** What the bytes look like when they are text (an HTML page, a JSON error), for the message. */
function describeText(bytes: Uint8Array): string {
  if (isHtmlPage(bytes)) return ' (it is an HTML page)';
  if (/^[{[]/.test(new TextDecoder().decode(bytes.subarray(0, 64)).trimStart())) return ' (it is JSON text)';
  return '';
}
