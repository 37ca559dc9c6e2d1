// Tells an ONNX model's bytes (a protobuf ModelProto) from anything else before the runtime is handed them,
// so that an HTML page, a JSON error or a truncated download is a clear error, not the runtime's.
import { ModelPackageError } from '../errors/index.js';
import { isHtmlPage } from '../pipeline/html-page.js';

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
  let irVersion = false;
  let graph = false;
  let i = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      if (i >= bytes.length) throw fail('it ends inside a field');
      const b = bytes[i++]!;
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
    }
    throw fail('a varint runs past 10 bytes');
  };
  while (i < bytes.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    const expected = MODEL_FIELDS[field];
    if (field === 0 || (expected !== undefined && expected !== wire)) throw fail(`field ${field} has wire type ${wire}`);
    if (wire === 0) varint();
    else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else if (wire === 2) {
      const length = varint();
      if (length > bytes.length - i)
        throw fail(`field ${field} runs ${length - (bytes.length - i)} bytes past the end (a truncated download?)`);
      i += length;
    } else throw fail(`field ${field} has wire type ${wire}, which protobuf no longer uses`);
    if (i > bytes.length) throw fail('it ends inside a field');
    if (field === 1) irVersion = true;
    if (field === 7) graph = true;
  }
  if (!irVersion || !graph) throw fail(`it has no ${irVersion ? 'graph' : 'ir_version'}`);
}

/** What the bytes look like when they are text (an HTML page, a JSON error), for the message. */
function describeText(bytes: Uint8Array): string {
  if (isHtmlPage(bytes)) return ' (it is an HTML page)';
  if (/^[{[]/.test(new TextDecoder().decode(bytes.subarray(0, 64)).trimStart())) return ' (it is JSON text)';
  return '';
}
