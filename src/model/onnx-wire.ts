// ONNX models in protobuf's wire format: read as onnxruntime's protobuf reader reads them, written back in the
// canonical form, so that the runtime is only ever handed bytes written here from what edgeseg read and checked.
//
// onnxruntime parses models with protobuf's C++ reader (lite runtime). Where a reader could differ, this one
// does what that one does:
// - a tag is at most 5 bytes and keeps its low 32 bits (bits above are dropped, a 6th byte fails the parse);
// - a varint is at most 10 bytes; an int32 or enum field keeps the low 32 bits of it;
// - a known field with another wire type than its own is an unknown field, skipped (a repeated number also
//   comes packed, as wire type 2);
// - a proto2 enum value outside the enum is an unknown field (the C++ reader keeps it aside, never as the value);
// - a singular number or string read twice keeps the last; a singular message read twice is merged; setting a
//   member of a oneof clears the others; repeated fields append;
// - unknown fields are skipped (the C++ reader keeps their bytes, uninterpreted: here they are dropped);
// - wire types 6 and 7, a group end where none began, and a length past the end fail the parse.
// Stricter than it, and refused: field number 0, groups (wire type 3, which no ONNX writer emits), strings that
// are not UTF-8, more than MAX_MESSAGES messages, and messages nested deeper than protobuf's default limit.
// protobufjs, the well-kept JavaScript reader, differs in three of those (it reads 10-byte tags, reads a known
// field whatever its wire type, and replaces a singular message read twice), and its reflection compiles
// code with `new Function`, which a page's Content-Security-Policy may forbid: hence this reader, driven by the
// table that scripts/onnx-schema generates from ONNX's own onnx.proto.
import { ONNX_ENUMS, ONNX_MESSAGES, type ModelProto, type OnnxField, type OnnxMessageName } from './onnx-schema.js';

/** More messages than this (nodes, attributes, tensors, value infos, dimensions…) and a model is refused. */
export const MAX_MESSAGES = 1_000_000;
/** protobuf's default recursion limit, which onnxruntime keeps. */
export const MAX_DEPTH = 100;

/** Why some bytes are not a ModelProto this reader accepts (the caller words it for the user). */
export class WireError extends Error {
  override readonly name = 'WireError';
}

/** A decoded message: field name → value, as the interfaces of onnx-schema.ts type it. */
type Message = Record<string, unknown>;

/** Where every TensorProto of the model is, as it was read (for the checks that look at each tensor). */
export interface DecodedModel {
  model: ModelProto;
  /** Every TensorProto at any depth (initializers, attributes, sparse tensors, functions, training info…). */
  tensors: Message[];
  /** Every NodeProto at any depth, with functions' and subgraphs' own. */
  nodes: Message[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

/** Each message's fields by number, for the reader. */
const BY_NUMBER = new Map<OnnxMessageName, Map<number, OnnxField>>(
  Object.entries(ONNX_MESSAGES).map(([name, fields]) => [name as OnnxMessageName, new Map(fields.map((f) => [f.number, f]))]),
);
const ENUM_VALUES = new Map(Object.entries(ONNX_ENUMS).map(([name, values]) => [name, new Set<number>(values)]));

/** For each field of a oneof, every field of the same oneof in its message. */
const ONEOF_SIBLINGS = new Map<OnnxField, OnnxField[]>(
  Object.values(ONNX_MESSAGES).flatMap((fields) =>
    fields.filter((f) => f.oneof).map((f) => [f, fields.filter((g) => g.oneof === f.oneof)] as [OnnxField, OnnxField[]]),
  ),
);

/** The wire type a field's single value has: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32. */
function wireTypeOf(field: OnnxField): number {
  if (field.message || field.scalar === 'string' || field.scalar === 'bytes') return 2;
  if (field.scalar === 'double') return 1;
  if (field.scalar === 'float') return 5;
  return 0;
}

/** Decodes `bytes` as a ModelProto; throws WireError where onnxruntime's reader would fail, or past the limits. */
export function decodeModel(bytes: Uint8Array): DecodedModel {
  const reader = new Reader(bytes);
  const model = reader.message('ModelProto', 0, bytes.length, {}, 0);
  return { model, tensors: reader.tensors, nodes: reader.nodes };
}

class Reader {
  readonly tensors: Message[] = [];
  readonly nodes: Message[] = [];
  private messages = 0;
  private readonly view: DataView;
  private at = 0;
  /** The last varint's low and high 32 bits (read without allocating). */
  private lo = 0;
  private hi = 0;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Reads fields from `start` to `end` into `target` (a new message, or one read before: a merge). */
  message(type: OnnxMessageName, start: number, end: number, target: Message, depth: number): Message {
    if (depth > MAX_DEPTH) throw new WireError(`its messages nest deeper than ${MAX_DEPTH} levels`);
    if (++this.messages > MAX_MESSAGES) throw new WireError(`it holds more than ${MAX_MESSAGES.toLocaleString('en')} messages`);
    if (type === 'TensorProto' || type === 'NodeProto') (type === 'TensorProto' ? this.tensors : this.nodes).push(target);
    const fields = BY_NUMBER.get(type)!;
    // Repeated numbers read one by one (unpacked), kept as raw bits until the message ends; made on first use.
    let pending: Map<OnnxField, number[]> | undefined;
    this.at = start;
    while (this.at < end) {
      const tag = this.tag(end);
      const number = tag >>> 3;
      const wire = tag & 7;
      if (number === 0) throw new WireError('a field is numbered 0');
      const field = fields.get(number);
      if (field && wire === wireTypeOf(field)) pending = this.value(field, target, pending, end, depth);
      else if (field?.repeated && wire === 2 && !field.message && field.scalar !== 'string' && field.scalar !== 'bytes') {
        if (pending) this.flush(field, target, pending);
        const length = this.length(end);
        const after = this.at + length;
        append(target, field, this.packed(field, this.at, after));
        this.at = after;
      } else this.skip(wire, number, end);
    }
    if (pending) for (const field of pending.keys()) this.flush(field, target, pending);
    if (this.at !== end) throw new WireError('a field runs past the end of its message');
    return target;
  }

  /** Reads one value of `field` into `target`; returns the pending repeated numbers (created if needed). */
  private value(
    field: OnnxField,
    target: Message,
    pending: Map<OnnxField, number[]> | undefined,
    end: number,
    depth: number,
  ): Map<OnnxField, number[]> | undefined {
    if (field.message) {
      const length = this.length(end);
      const start = this.at;
      const after = start + length;
      let child: Message;
      if (field.repeated) {
        child = {};
        ((target[field.name] ??= []) as Message[]).push(child);
      } else {
        this.setOneof(field, target);
        child = (target[field.name] as Message | undefined) ?? {};
        target[field.name] = child;
      }
      this.message(field.message, start, after, child, depth + 1);
      this.at = after;
      return pending;
    }
    if (field.scalar === 'string' || field.scalar === 'bytes') {
      const length = this.length(end);
      const raw = this.bytes.subarray(this.at, this.at + length);
      this.at += length;
      let value: string | Uint8Array = raw;
      if (field.scalar === 'string') {
        try {
          value = utf8.decode(raw);
        } catch {
          throw new WireError(`a ${field.name} is not UTF-8 text`);
        }
      }
      if (field.repeated) ((target[field.name] ??= []) as unknown[]).push(value);
      else {
        this.setOneof(field, target);
        target[field.name] = value;
      }
      return pending;
    }
    // A number: kept as its raw 64 bits (lo, hi) until the message ends, then typed once.
    if (field.scalar === 'float' || field.scalar === 'double') {
      if (this.at + (field.scalar === 'float' ? 4 : 8) > end) throw new WireError(`a ${field.name} runs past the end`);
      this.lo = this.view.getUint32(this.at, true);
      this.hi = field.scalar === 'double' ? this.view.getUint32(this.at + 4, true) : 0;
      this.at += field.scalar === 'float' ? 4 : 8;
    } else this.varint(end);
    if (field.enum) {
      const value = this.lo | 0;
      if (!ENUM_VALUES.get(field.enum)!.has(value)) return pending; // an unknown value of a closed enum is not the field's value
    }
    if (field.repeated) {
      pending ??= new Map();
      let list = pending.get(field);
      if (!list) pending.set(field, (list = []));
      list.push(this.lo, this.hi);
    } else {
      this.setOneof(field, target);
      target[field.name] = single(field, this.lo, this.hi);
    }
    return pending;
  }

  private setOneof(field: OnnxField, target: Message): void {
    if (!field.oneof) return;
    for (const other of ONEOF_SIBLINGS.get(field)!) if (other !== field) delete target[other.name];
  }

  /** Appends the repeated values read one by one (unpacked) to the field's typed array. */
  private flush(field: OnnxField, target: Message, pending: Map<OnnxField, number[]>): void {
    const list = pending.get(field);
    if (!list) return;
    pending.delete(field);
    const count = list.length / 2;
    const out = typedArray(field, count);
    const view = new DataView(out.buffer);
    const size = out.BYTES_PER_ELEMENT;
    for (let i = 0; i < count; i++) {
      if (size === 8) {
        view.setUint32(i * 8, list[2 * i]!, true);
        view.setUint32(i * 8 + 4, list[2 * i + 1]!, true);
      } else view.setUint32(i * 4, list[2 * i]!, true);
    }
    append(target, field, out);
  }

  /** A packed run of numbers, `start` to `end`. */
  private packed(field: OnnxField, start: number, end: number): TypedNumbers {
    if (field.scalar === 'float' || field.scalar === 'double') {
      const size = field.scalar === 'float' ? 4 : 8;
      if ((end - start) % size !== 0) throw new WireError(`a packed ${field.name} is not a whole number of values`);
      const out = typedArray(field, (end - start) / size);
      new Uint8Array(out.buffer).set(this.bytes.subarray(start, end));
      return out;
    }
    let count = 0;
    for (let i = start; i < end; i++) if (this.bytes[i]! < 0x80) count++;
    const out = typedArray(field, count);
    const view = new DataView(out.buffer);
    this.at = start;
    let kept = 0;
    for (let i = 0; i < count; i++) {
      this.varint(end);
      if (field.enum && !ENUM_VALUES.get(field.enum)!.has(this.lo | 0)) continue;
      if (out.BYTES_PER_ELEMENT === 8) {
        view.setUint32(kept * 8, this.lo, true);
        view.setUint32(kept * 8 + 4, this.hi, true);
      } else view.setUint32(kept * 4, this.lo, true);
      kept++;
    }
    if (this.at !== end) throw new WireError(`a packed ${field.name} ends inside a value`);
    return kept === count ? out : out.subarray(0, kept);
  }

  /** A tag: at most 5 bytes, its low 32 bits. */
  private tag(end: number): number {
    let value = 0;
    for (let i = 0; i < 5; i++) {
      if (this.at >= end) throw new WireError('it ends inside a field');
      const b = this.bytes[this.at++]!;
      value = (value | ((b & 0x7f) << (7 * i))) >>> 0;
      if (b < 0x80) return value;
    }
    throw new WireError('a field tag runs past 5 bytes');
  }

  /** A varint of up to 10 bytes into lo and hi (bits past 64 dropped). */
  private varint(end: number): void {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.at >= end) throw new WireError('it ends inside a field');
      const b = this.bytes[this.at++]!;
      const bits = b & 0x7f;
      if (i < 4) lo |= bits << (7 * i);
      else if (i === 4) {
        lo |= bits << 28;
        hi |= bits >>> 4;
      } else hi |= bits << (7 * i - 32);
      if (b < 0x80) {
        this.lo = lo >>> 0;
        this.hi = hi >>> 0;
        return;
      }
    }
    throw new WireError('a varint runs past 10 bytes');
  }

  /** A length: a varint of at most 5 bytes, as protobuf reads sizes, that must fit in the bytes left. */
  private length(end: number): number {
    let value = 0;
    for (let i = 0; ; i++) {
      if (i === 5) throw new WireError('a length runs past 5 bytes');
      if (this.at >= end) throw new WireError('it ends inside a field');
      const b = this.bytes[this.at++]!;
      value += (b & 0x7f) * 2 ** (7 * i);
      if (b < 0x80) break;
    }
    if (value > end - this.at) throw new WireError(`a field runs ${value - (end - this.at)} bytes past the end (a truncated download?)`);
    return value;
  }

  private skip(wire: number, number: number, end: number): void {
    if (wire === 0) this.varint(end);
    else if (wire === 1 || wire === 5) {
      this.at += wire === 1 ? 8 : 4;
      if (this.at > end) throw new WireError(`field ${number} runs past the end`);
    } else if (wire === 2) {
      const length = this.length(end); // read first: it moves `at` past the length itself
      this.at += length;
    } else if (wire === 3) throw new WireError(`field ${number} is a group (wire type 3), which no ONNX writer emits`);
    else if (wire === 4) throw new WireError(`field ${number} ends a group that never began`);
    else throw new WireError(`field ${number} has wire type ${wire}, which protobuf does not have`);
  }
}

type TypedNumbers = Int32Array | Float32Array | Float64Array | BigInt64Array | BigUint64Array;

function typedArray(field: OnnxField, count: number): TypedNumbers {
  switch (field.scalar) {
    case 'float':
      return new Float32Array(count);
    case 'double':
      return new Float64Array(count);
    case 'int64':
      return new BigInt64Array(count);
    case 'uint64':
      return new BigUint64Array(count);
    default:
      return new Int32Array(count); // int32 and enums
  }
}

function append(target: Message, field: OnnxField, values: TypedNumbers): void {
  const before = target[field.name] as TypedNumbers | undefined;
  if (!before || before.length === 0) {
    target[field.name] = values;
    return;
  }
  const joined = typedArray(field, before.length + values.length);
  joined.set(before as never);
  joined.set(values as never, before.length);
  target[field.name] = joined;
}

const scratch = new DataView(new ArrayBuffer(8));

/** One number from its raw bits, as the schema types it. */
function single(field: OnnxField, lo: number, hi: number): number | bigint {
  scratch.setUint32(0, lo, true);
  scratch.setUint32(4, hi, true);
  switch (field.scalar) {
    case 'float':
      return scratch.getFloat32(0, true);
    case 'double':
      return scratch.getFloat64(0, true);
    case 'int64':
      return scratch.getBigInt64(0, true);
    case 'uint64':
      return scratch.getBigUint64(0, true);
    default:
      return lo | 0; // int32 and enums: the low 32 bits, signed
  }
}

/** A model in protobuf's canonical encoding: fields by number, repeated numbers packed where the schema says. */
export function encodeModel(model: ModelProto): Uint8Array {
  const sizes = new Map<Message, number>();
  const out = new Writer(new Uint8Array(sizeOf('ModelProto', model as Message, sizes)));
  out.message('ModelProto', model as Message, sizes);
  return out.bytes;
}

function varintSize(lo: number, hi: number): number {
  if (hi === 0) return lo < 0x80 ? 1 : lo < 0x4000 ? 2 : lo < 0x200000 ? 3 : lo < 0x10000000 ? 4 : 5;
  return hi < 0x8 ? 5 : hi < 0x400 ? 6 : hi < 0x20000 ? 7 : hi < 0x1000000 ? 8 : hi < 0x80000000 ? 9 : 10;
}

/** The low and high 32 bits of a number as a varint carries it (negative int32s sign-extended to 64 bits). */
function bitsOf(field: OnnxField, value: number | bigint): [number, number] {
  if (typeof value === 'bigint') return [Number(value & 0xffffffffn), Number((value >> 32n) & 0xffffffffn)];
  if (field.scalar === 'float') {
    scratch.setFloat32(0, value, true);
    return [scratch.getUint32(0, true), 0];
  }
  if (field.scalar === 'double') {
    scratch.setFloat64(0, value, true);
    return [scratch.getUint32(0, true), scratch.getUint32(4, true)];
  }
  return [value >>> 0, value < 0 ? 0xffffffff : 0];
}

function elementSize(field: OnnxField, value: number | bigint): number {
  if (field.scalar === 'float') return 4;
  if (field.scalar === 'double') return 8;
  const [lo, hi] = bitsOf(field, value);
  return varintSize(lo, hi);
}

function packedSize(field: OnnxField, values: TypedNumbers): number {
  if (field.scalar === 'float' || field.scalar === 'double') return values.byteLength;
  let size = 0;
  for (const v of values) size += elementSize(field, v);
  return size;
}

function stringBytes(value: string | Uint8Array): Uint8Array {
  return typeof value === 'string' ? encoder.encode(value) : value;
}

function sizeOf(type: OnnxMessageName, message: Message, sizes: Map<Message, number>): number {
  let size = 0;
  for (const field of ONNX_MESSAGES[type]) {
    const value = message[field.name];
    if (value === undefined) continue;
    const tag = varintSize(field.number * 8, 0);
    if (field.message) {
      for (const child of field.repeated ? (value as Message[]) : [value as Message]) {
        const inner = sizeOf(field.message, child, sizes);
        sizes.set(child, inner);
        size += tag + varintSize(inner, 0) + inner;
      }
    } else if (field.scalar === 'string' || field.scalar === 'bytes') {
      for (const v of field.repeated ? (value as (string | Uint8Array)[]) : [value as string | Uint8Array]) {
        const length = stringBytes(v).length;
        size += tag + varintSize(length, 0) + length;
      }
    } else if (field.repeated) {
      const values = value as TypedNumbers;
      if (values.length === 0) continue;
      if (field.packed) {
        const inner = packedSize(field, values);
        size += tag + varintSize(inner, 0) + inner;
      } else for (const v of values) size += tag + elementSize(field, v);
    } else size += tag + elementSize(field, value as number | bigint);
  }
  return size;
}

class Writer {
  private at = 0;
  private readonly view: DataView;

  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  message(type: OnnxMessageName, message: Message, sizes: Map<Message, number>): void {
    for (const field of ONNX_MESSAGES[type]) {
      const value = message[field.name];
      if (value === undefined) continue;
      if (field.message) {
        for (const child of field.repeated ? (value as Message[]) : [value as Message]) {
          this.tag(field.number, 2);
          this.varint(sizes.get(child)!, 0);
          this.message(field.message, child, sizes);
        }
      } else if (field.scalar === 'string' || field.scalar === 'bytes') {
        for (const v of field.repeated ? (value as (string | Uint8Array)[]) : [value as string | Uint8Array]) {
          const raw = stringBytes(v);
          this.tag(field.number, 2);
          this.varint(raw.length, 0);
          this.bytes.set(raw, this.at);
          this.at += raw.length;
        }
      } else if (field.repeated) {
        const values = value as TypedNumbers;
        if (values.length === 0) continue;
        if (field.packed) {
          this.tag(field.number, 2);
          this.varint(packedSize(field, values), 0);
          if (field.scalar === 'float' || field.scalar === 'double') {
            this.bytes.set(new Uint8Array(values.buffer, values.byteOffset, values.byteLength), this.at);
            this.at += values.byteLength;
          } else for (const v of values) this.number(field, v);
        } else
          for (const v of values) {
            this.tag(field.number, wireTypeOf(field));
            this.number(field, v);
          }
      } else {
        this.tag(field.number, wireTypeOf(field));
        this.number(field, value as number | bigint);
      }
    }
  }

  private number(field: OnnxField, value: number | bigint): void {
    const [lo, hi] = bitsOf(field, value);
    if (field.scalar === 'float') {
      this.view.setUint32(this.at, lo, true);
      this.at += 4;
    } else if (field.scalar === 'double') {
      this.view.setUint32(this.at, lo, true);
      this.view.setUint32(this.at + 4, hi, true);
      this.at += 8;
    } else this.varint(lo, hi);
  }

  private tag(number: number, wire: number): void {
    this.varint((number * 8 + wire) >>> 0, 0);
  }

  private varint(lo: number, hi: number): void {
    while (hi !== 0 || lo >= 0x80) {
      this.bytes[this.at++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    this.bytes[this.at++] = lo;
  }
}
