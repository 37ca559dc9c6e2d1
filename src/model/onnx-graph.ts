// Reading and editing a decoded ONNX graph: value shapes, the node that makes a value, attributes, and the
// graph cut at a value with whatever only fed the removed nodes dropped. Used by the model's form reader and
// by the trailing-Resize cut.
import type { AttributeProto, GraphProto, ModelProto, NodeProto, ValueInfoProto } from './onnx-schema.js';

/** ONNX's TensorProto.DataType values that edgeseg meets. */
export const ELEM = { float: 1, uint8: 2, int8: 3, int32: 6, int64: 7, bool: 9, float16: 10, double: 11 } as const;

/** An element type's name for messages (`float32`, `int64`…). */
export function elemName(type: number | undefined): string {
  const names: Record<number, string> = {
    1: 'float32',
    2: 'uint8',
    3: 'int8',
    4: 'uint16',
    5: 'int16',
    6: 'int32',
    7: 'int64',
    8: 'string',
    9: 'bool',
    10: 'float16',
    11: 'float64',
    12: 'uint32',
    13: 'uint64',
    16: 'bfloat16',
  };
  return (type !== undefined && names[type]) || `type ${type ?? '?'}`;
}

/** A value's element type and dims (a number, a symbolic name, or undefined where unknown). */
export interface ValueType {
  name: string;
  elemType: number | undefined;
  /** undefined: the rank is unknown. */
  dims: (number | string | undefined)[] | undefined;
}

export function valueTypeOf(info: ValueInfoProto): ValueType {
  const tensor = info.type?.tensor_type;
  // A dim_value of -1 (as paddle2onnx writes an unknown size) or 0 is no size: unknown, as an unnamed dim is.
  const dims = tensor?.shape?.dim?.map((d) =>
    d.dim_value !== undefined ? (d.dim_value > 0n ? Number(d.dim_value) : undefined) : d.dim_param || undefined,
  );
  return { name: info.name ?? '', elemType: tensor?.elem_type, dims };
}

/** A ValueInfoProto for a tensor of `elemType` with `dims`. */
export function valueInfo(name: string, elemType: number, dims: readonly (number | string | undefined)[]): ValueInfoProto {
  return {
    name,
    type: {
      tensor_type: {
        elem_type: elemType,
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dim_value: BigInt(d) } : d === undefined ? {} : { dim_param: d })) },
      },
    },
  };
}

/** The version of the default ("" or "ai.onnx") operator set the model imports; 0 when none. */
export function defaultOpset(model: ModelProto): number {
  const set = model.opset_import?.find((o) => !o.domain || o.domain === 'ai.onnx');
  return set?.version === undefined ? 0 : Number(set.version);
}

/** Whether `node` is the standard operator `opType` (default domain). */
export function isOp(node: NodeProto | undefined, opType: string): node is NodeProto {
  return !!node && node.op_type === opType && (!node.domain || node.domain === 'ai.onnx');
}

/** The node that makes `value` in `graph`, if one does (a graph input or initializer has none). */
export function producerOf(graph: GraphProto, value: string): NodeProto | undefined {
  return graph.node?.find((n) => n.output?.includes(value));
}

/** The nodes that read `value`. */
export function consumersOf(graph: GraphProto, value: string): NodeProto[] {
  return graph.node?.filter((n) => n.input?.includes(value)) ?? [];
}

function attribute(node: NodeProto, name: string): AttributeProto | undefined {
  return node.attribute?.find((a) => a.name === name);
}

/** An INT attribute, or `fallback` where the node has none. */
export function intAttribute(node: NodeProto, name: string, fallback: number): number {
  const a = attribute(node, name);
  return a?.i === undefined ? fallback : Number(a.i);
}

/** A FLOAT attribute, or `fallback`. */
export function floatAttribute(node: NodeProto, name: string, fallback: number): number {
  return attribute(node, name)?.f ?? fallback;
}

/** A STRING attribute, or `fallback`. */
export function textAttribute(node: NodeProto, name: string, fallback: string): string {
  const s = attribute(node, name)?.s;
  return s === undefined ? fallback : new TextDecoder().decode(s);
}

/** An INTS attribute, or undefined. */
export function intsAttribute(node: NodeProto, name: string): number[] | undefined {
  const ints = attribute(node, name)?.ints;
  return ints && Array.from(ints, Number);
}

/** Whether the node has the attribute at all. */
export function hasAttribute(node: NodeProto, name: string): boolean {
  return attribute(node, name) !== undefined;
}

/** A constant tensor's values as numbers, where `value` is an initializer or a Constant node's output. */
export function constantValues(graph: GraphProto, value: string): number[] | undefined {
  const tensor = graph.initializer?.find((t) => t.name === value) ?? producerConstant(graph, value);
  if (!tensor) return undefined;
  if (tensor.float_data?.length) return Array.from(tensor.float_data);
  if (tensor.int64_data?.length) return Array.from(tensor.int64_data, Number);
  if (tensor.int32_data?.length) return Array.from(tensor.int32_data);
  const raw = tensor.raw_data;
  if (!raw) return [];
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const read: Record<number, [number, (at: number) => number]> = {
    [ELEM.float]: [4, (at) => view.getFloat32(at, true)],
    [ELEM.int64]: [8, (at) => Number(view.getBigInt64(at, true))],
    [ELEM.int32]: [4, (at) => view.getInt32(at, true)],
    [ELEM.double]: [8, (at) => view.getFloat64(at, true)],
  };
  const reader = read[tensor.data_type ?? 0];
  if (!reader) return undefined;
  const [size, get] = reader;
  return Array.from({ length: Math.floor(raw.length / size) }, (_, i) => get(i * size));
}

function producerConstant(graph: GraphProto, value: string) {
  const node = producerOf(graph, value);
  return isOp(node, 'Constant') ? node.attribute?.find((a) => a.name === 'value')?.t : undefined;
}

/**
 * The model with `graph`'s outputs replaced by `outputs`, `added.before` and `added.after` the graph's nodes
 * (nodes must come after what they read), and every node that no longer leads to an output dropped (with the
 * initializers only they read). Every other field of the model is kept as it was.
 */
export function withOutputs(
  model: ModelProto,
  outputs: ValueInfoProto[],
  added: { before?: NodeProto[]; after?: NodeProto[] } = {},
): ModelProto {
  const graph = model.graph!;
  const nodes = [...(added.before ?? []), ...(graph.node ?? []), ...(added.after ?? [])];
  const needed = new Set(outputs.map((o) => o.name ?? ''));
  const kept = new Set<NodeProto>();
  // Walk back from the outputs: a node is kept when one of its outputs is needed (nodes are in topological
  // order, so one pass from the end reaches every producer).
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i]!;
    if (!node.output?.some((o) => needed.has(o))) continue;
    kept.add(node);
    for (const input of node.input ?? []) needed.add(input);
    // A subgraph's nodes may read values of this graph by name.
    for (const name of outerNamesOf(node)) needed.add(name);
  }
  return {
    ...model,
    graph: {
      ...graph,
      node: nodes.filter((n) => kept.has(n)),
      initializer: graph.initializer?.filter((t) => needed.has(t.name ?? '')),
      output: outputs,
      value_info: graph.value_info?.filter((v) => needed.has(v.name ?? '')),
    },
  };
}

/** Every name a node's subgraphs (If, Loop, Scan bodies) read, at any depth: they may come from outside. */
function outerNamesOf(node: NodeProto): string[] {
  const names: string[] = [];
  for (const a of node.attribute ?? []) {
    for (const g of [...(a.g ? [a.g] : []), ...(a.graphs ?? [])]) {
      for (const inner of g.node ?? []) names.push(...(inner.input ?? []), ...outerNamesOf(inner));
    }
  }
  return names;
}
