// The top level of a protobuf message, field by field: what edgeseg reads of ONNX files (the check of
// the bytes in onnx-bytes.ts, and the graph surgery of onnx-trailing-resize.ts) without a protobuf library.

/** One field of a message. */
export interface Field {
  number: number;
  wireType: number;
  /** The whole field (tag included), to copy it unchanged. */
  bytes: Uint8Array;
  /** Length-delimited payload (wire type 2); empty otherwise. */
  payload: Uint8Array;
  /** The value of a varint field. */
  varint: number;
}

/** The top-level fields of one protobuf message. */
export function fieldsOf(bytes: Uint8Array): Field[] {
  const fields: Field[] = [];
  let at = 0;
  while (at < bytes.length) {
    const start = at;
    const tag = readVarint(bytes, at);
    at = tag.next;
    const number = Math.floor(tag.value / 8);
    const wireType = tag.value % 8;
    let payload: Uint8Array = new Uint8Array();
    let varint = 0;
    if (wireType === 0) {
      const v = readVarint(bytes, at);
      varint = v.value;
      at = v.next;
    } else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else if (wireType === 2) {
      const length = readVarint(bytes, at);
      at = length.next + length.value;
      payload = bytes.subarray(length.next, at);
    } else throw new Error(`field ${number} has wire type ${wireType}, which protobuf no longer uses`);
    if (number === 0) throw new Error('a field is numbered 0');
    if (at > bytes.length) throw new Error(`field ${number} runs ${at - bytes.length} bytes past the end (a truncated download?)`);
    fields.push({ number, wireType, bytes: bytes.subarray(start, at), payload, varint });
  }
  return fields;
}

/** A varint as a number (exact up to 2^53; the sizes, tags and dims read here are far below). */
function readVarint(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  let scale = 1;
  for (let i = at; i < bytes.length && i < at + 10; i++) {
    const b = bytes[i]!;
    value += (b & 0x7f) * scale;
    scale *= 128;
    if (b < 0x80) return { value, next: i + 1 };
  }
  throw new Error(at + 10 <= bytes.length ? 'a varint runs past 10 bytes' : 'it ends inside a field');
}
