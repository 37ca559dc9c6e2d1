// Removes a model's trailing bilinear Resize to the input size, so that the logits leave the runtime small.
//
// Models such as torchvision's LRASPP end with `F.interpolate(logits, size=input_size, mode="bilinear",
// align_corners=False)`: an ONNX Resize that writes C × H × W floats which postprocessing then reads
// and resamples again. Postprocessing can compute those upsampled values itself, only where it needs
// them (see src/pipeline/onnx-linear-resize.ts), so the worker loads a copy of the model without that
// node. This module reads and rewrites just enough of the protobuf wire format (ModelProto → graph →
// nodes and outputs) to do it; every other field is copied byte for byte.

import { fieldsOf, type Field } from './protobuf.js';

/** What the cut model computes and what the removed Resize would have made of it. */
export interface TrailingResizeCut {
  /** The model without the Resize: its single output is the Resize's input, `[N, C, h, w]`. */
  weights: Uint8Array;
  /** The original model's declared output shape, `[N, C, H, W]` (H, W the network input's). */
  outputDims: [number, number, number, number];
  /** The Resize's input tensor, now the graph's output. */
  outputName: string;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * The cut model, or null when the model does not end in a Resize that is safe to absorb: one graph
 * output, produced by a Resize (opset ≥ 11) with mode `linear`, `half_pixel` or `pytorch_half_pixel`
 * coordinates, no antialias, no axes, `stretch` aspect policy, float output `[N, C, H, W]` with
 * H × W the network input's (both fixed) and C > 1.
 */
export function cutTrailingResize(weights: Uint8Array): TrailingResizeCut | null {
  let model: Field[];
  let graphIndex: number;
  let graph: Field[];
  try {
    model = fieldsOf(weights);
    graphIndex = model.findIndex((f) => f.number === 7 && f.wireType === 2);
    if (graphIndex < 0 || defaultOpset(model) < 11) return null;
    graph = fieldsOf(model[graphIndex]!.payload);
  } catch {
    return null; // not a model this reader understands: keep the full graph
  }
  const outputs = graph.filter((f) => f.number === 12);
  const inputs = graph.filter((f) => f.number === 11);
  if (outputs.length !== 1 || inputs.length < 1) return null;
  const output = valueInfoOf(outputs[0]!.payload);
  const input = valueInfoOf(inputs[0]!.payload);
  if (!output || !input || output.elemType !== 1) return null;
  const [n, c, h, w] = output.dims;
  const fixed = (d: number | string | undefined): d is number => typeof d === 'number' && d > 0;
  if (output.dims.length !== 4 || !fixed(n) || !fixed(c) || !fixed(h) || !fixed(w) || c === 1) return null;
  if (input.dims.length !== 4 || input.dims[2] !== h || input.dims[3] !== w) return null;

  const nodes = graph.filter((f) => f.number === 1).map((f) => ({ field: f, node: nodeOf(f.payload) }));
  const producer = nodes.find((x) => x.node.outputs.includes(output.name));
  if (!producer || !isAbsorbableResize(producer.node)) return null;
  const source = producer.node.inputs[0];
  if (!source || inputs.some((f) => valueInfoOf(f.payload)?.name === source)) return null;

  // Drop the Resize, then whatever only fed it (the Shape/Slice/Concat/Constant that computed its sizes).
  const kept = new Set(nodes.filter((x) => x !== producer));
  for (let changed = true; changed;) {
    changed = false;
    const used = new Set<string>([source]);
    for (const x of kept) for (const name of x.node.inputs) used.add(name);
    for (const x of kept) {
      if (!x.node.outputs.some((name) => used.has(name))) {
        kept.delete(x);
        changed = true;
      }
    }
  }
  const newOutput = field(12, valueInfoBytes(source, 1, [n, c, 'edgeseg_logit_height', 'edgeseg_logit_width']));
  const keptFields = new Set([...kept].map((x) => x.field));
  const newGraph: Uint8Array[] = [];
  for (const f of graph) {
    if (f.number === 1) {
      if (keptFields.has(f)) newGraph.push(f.bytes);
    } else if (f.number === 12) newGraph.push(newOutput);
    else newGraph.push(f.bytes);
  }
  const newModel = model.map((f, i) => (i === graphIndex ? field(7, concat(newGraph)) : f.bytes));
  return { weights: concat(newModel), outputDims: [n, c, h, w], outputName: source };
}

interface NodeInfo {
  inputs: string[];
  outputs: string[];
  opType: string;
  domain: string;
  attributes: Map<string, Field[]>;
}

function isAbsorbableResize(node: NodeInfo): boolean {
  if (node.opType !== 'Resize' || (node.domain !== '' && node.domain !== 'ai.onnx')) return false;
  const text = (name: string, fallback: string) => {
    const s = node.attributes.get(name)?.find((f) => f.number === 4);
    return s ? decoder.decode(s.payload) : fallback;
  };
  const int = (name: string, fallback: number) => node.attributes.get(name)?.find((f) => f.number === 3)?.varint ?? fallback;
  if (text('mode', 'nearest') !== 'linear') return false;
  if (!['half_pixel', 'pytorch_half_pixel'].includes(text('coordinate_transformation_mode', 'half_pixel'))) return false;
  if (int('antialias', 0) !== 0 || node.attributes.has('axes')) return false;
  return text('keep_aspect_ratio_policy', 'stretch') === 'stretch';
}

function nodeOf(bytes: Uint8Array): NodeInfo {
  const node: NodeInfo = { inputs: [], outputs: [], opType: '', domain: '', attributes: new Map() };
  for (const f of fieldsOf(bytes)) {
    if (f.number === 1) node.inputs.push(decoder.decode(f.payload));
    else if (f.number === 2) node.outputs.push(decoder.decode(f.payload));
    else if (f.number === 4) node.opType = decoder.decode(f.payload);
    else if (f.number === 7) node.domain = decoder.decode(f.payload);
    else if (f.number === 5) {
      const attribute = fieldsOf(f.payload);
      const name = attribute.find((a) => a.number === 1);
      if (name) node.attributes.set(decoder.decode(name.payload), attribute);
    }
  }
  return node;
}

/** ValueInfoProto → name, element type and dims (a number, a symbolic name, or undefined). */
function valueInfoOf(bytes: Uint8Array): { name: string; elemType: number; dims: (number | string | undefined)[] } | null {
  const fields = fieldsOf(bytes);
  const name = fields.find((f) => f.number === 1);
  const tensor = fieldsOf(fields.find((f) => f.number === 2)?.payload ?? new Uint8Array()).find((f) => f.number === 1);
  if (!name || !tensor) return null;
  const tensorFields = fieldsOf(tensor.payload);
  const shape = tensorFields.find((f) => f.number === 2);
  const dims = shape
    ? fieldsOf(shape.payload)
        .filter((f) => f.number === 1)
        .map((d) => {
          const parts = fieldsOf(d.payload);
          const value = parts.find((p) => p.number === 1);
          const param = parts.find((p) => p.number === 2);
          return value ? value.varint : param ? decoder.decode(param.payload) : undefined;
        })
    : [];
  return { name: decoder.decode(name.payload), elemType: tensorFields.find((f) => f.number === 1)?.varint ?? 0, dims };
}

function valueInfoBytes(name: string, elemType: number, dims: (number | string)[]): Uint8Array {
  const shape = concat(dims.map((d) => field(1, typeof d === 'number' ? varintField(1, d) : field(2, encoder.encode(d)))));
  const tensor = concat([varintField(1, elemType), field(2, shape)]);
  return concat([field(1, encoder.encode(name)), field(2, field(1, tensor))]);
}

/** The version of the default ("" or "ai.onnx") operator set the model imports; 0 when none. */
function defaultOpset(model: Field[]): number {
  for (const f of model) {
    if (f.number !== 8) continue;
    const parts = fieldsOf(f.payload);
    const domain = parts.find((p) => p.number === 1);
    const name = domain ? decoder.decode(domain.payload) : '';
    if (name === '' || name === 'ai.onnx') return parts.find((p) => p.number === 2)?.varint ?? 0;
  }
  return 0;
}

function varintBytes(value: number): number[] {
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

function varintField(number: number, value: number): Uint8Array {
  return Uint8Array.from([...varintBytes(number * 8), ...varintBytes(value)]);
}

/** A length-delimited field. */
function field(number: number, payload: Uint8Array): Uint8Array {
  return concat([Uint8Array.from([...varintBytes(number * 8 + 2), ...varintBytes(payload.length)]), payload]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
