// What a model's graph says it takes and gives, and the model turned into the form the pipeline runs: one
// float32 NCHW image input, one float32 output of logits [1, C, h, w]. Models from the wild end in a Sigmoid,
// a Softmax or an ArgMax, take or give NHWC or float16, or have several outputs: each is read from the graph
// at load and changed once, in the graph, so that every backend runs the same contract. What the graph cannot
// decide is refused, naming the inference_config.json field that decides it: no model runs on a guess.
import { ModelPackageError } from '../errors/index.js';
import {
  constantValues,
  consumersOf,
  defaultOpset,
  ELEM,
  elemName,
  floatAttribute,
  intAttribute,
  intsAttribute,
  isOp,
  producerOf,
  valueInfo,
  valueTypeOf,
  withOutputs,
  type ValueType,
} from './onnx-graph.js';
import type { GraphProto, ModelProto, NodeProto, TensorProto, ValueInfoProto } from './onnx-schema.js';

/** A tensor's axis order: channels second (PyTorch, ONNX's own operators) or last (TensorFlow, MediaPipe). */
export type TensorLayout = 'nchw' | 'nhwc';

/** What the model's output holds, as the graph shows it. */
export type OutputForm =
  /** Scores before any activation: the platform's own form. */
  | 'logits'
  /** A Sigmoid's probabilities. */
  | 'sigmoid'
  /** A Softmax's probabilities over the classes. */
  | 'softmax'
  /** A LogSoftmax's log-probabilities. */
  | 'log-softmax'
  /** Class ids, an ArgMax over the classes. */
  | 'argmax';

/** The package's say in how the model is read, where the graph alone cannot tell (inference_config.json). */
export interface ModelFormConfig {
  /** `post_processing` as the platform's schema names it: the activation, and whether the graph applies it. */
  postProcessing: { type: 'sigmoid' | 'softmax'; fused: boolean } | null;
  /** `network_output.name`: the output to use, where the model has several. */
  outputName: string | null;
  /** `network_output.layout`. */
  outputLayout: TensorLayout | null;
  /** `network_input.layout`. */
  inputLayout: TensorLayout | null;
}

export const NO_FORM_CONFIG: ModelFormConfig = { postProcessing: null, outputName: null, outputLayout: null, inputLayout: null };

/** What edgeseg read from a model's graph and what it changed to run it (`edgeseg info` shows it). */
export interface ModelForm {
  /** The image input, as the model takes it. */
  input: {
    /** The graph input's name. */
    name: string;
    /** Its axis order. */
    layout: TensorLayout;
    /** Its element type: `float32` or `float16` (edgeseg feeds float32 and casts in the graph). */
    type: string;
  };
  /** The output edgeseg reads the mask from, as the model gives it. */
  output: {
    /** The graph output used. */
    name: string;
    /** What it holds, as the graph shows it (or as `post_processing` says, where the graph cannot). */
    form: OutputForm;
    /** Its axis order. */
    layout: TensorLayout;
    /** Its element type as the model gives it. */
    type: string;
    /** The number of channels where the graph says it (null: known only at run time). */
    channels: number | null;
  };
  /** The model's other outputs, unused. */
  ignoredOutputs: string[];
  /** What edgeseg changed in the graph so that it gives logits [1, C, h, w], in words. */
  changes: string[];
}

const refuse = (code: 'MODEL_INPUT_SHAPE' | 'MODEL_OUTPUT_SHAPE', message: string) => new ModelPackageError(code, message);

/** Ops that only move, copy or resize values, through which the reading of an output walks back. */
const PASS_THROUGH = new Set(['Identity', 'Cast', 'Transpose', 'Squeeze', 'Unsqueeze', 'Reshape', 'Resize']);
/** Ops whose output is probability-like but not a Sigmoid or Softmax the reading can undo: `post_processing` decides. */
const UNDECIDABLE = new Set(['HardSigmoid', 'Clip', 'Div', 'Relu6', 'Softplus', 'Tanh', 'Min', 'Max']);

/** One graph output as the reading found it. */
interface OutputReading {
  output: ValueType;
  form: OutputForm;
  /** The tensor to cut the graph at (its logits, or the output itself where nothing is cut). */
  cut: string;
  /** The ops removed after the cut, by op type, for the notes. */
  removed: string[];
  layout: TensorLayout;
  /** Rank of the cut tensor: 4, or 3 for `[N, h, w]` (a single channel squeezed away). */
  rank: 3 | 4;
  channels: number | null;
  /** The cut tensor's element type where the graph says it (undefined: a Cast to float32 is added). */
  elemType: number | undefined;
  /** Dims of the cut tensor as [N, C, h, w] where known. */
  dims: (number | string | undefined)[];
  /** Set where the output holds probabilities the graph could not undo: converted back to logits in the graph. */
  invert?: 'sigmoid' | 'softmax';
}

/**
 * Reads the model's input and output form and returns the model changed to the pipeline's contract, with
 * what was read. Throws MODEL_INPUT_SHAPE or MODEL_OUTPUT_SHAPE, saying what the model is and what to write,
 * where no reading fits or two would and the graph does not decide.
 */
export function adaptModel(
  proto: ModelProto,
  classCount: number,
  config: ModelFormConfig = NO_FORM_CONFIG,
): { proto: ModelProto; form: ModelForm } {
  const graph = proto.graph!;
  const initializers = new Set((graph.initializer ?? []).map((t) => t.name));
  const inputs = (graph.input ?? []).filter((i) => !initializers.has(i.name));
  if (inputs.length !== 1) {
    throw refuse(
      'MODEL_INPUT_SHAPE',
      `the model has ${inputs.length} inputs (${inputs.map((i) => describe(valueTypeOf(i))).join(', ') || 'none'}); edgeseg feeds one image`,
    );
  }
  const input = valueTypeOf(inputs[0]!);
  const inputLayout = readInputLayout(graph, input, config.inputLayout);
  if (input.elemType !== ELEM.float && input.elemType !== ELEM.float16) {
    throw refuse(
      'MODEL_INPUT_SHAPE',
      `the model's input ${describe(input)} is ${elemName(input.elemType)}; edgeseg feeds float32 or float16 images (export the model with a float input)`,
    );
  }

  const opset = defaultOpset(proto);
  const reading = chooseOutput(graph, classCount, config, opset, input.dims);
  const changes: string[] = [];
  const before: NodeProto[] = [];
  const extra: NodeProto[] = [];
  const constants: TensorProto[] = [];
  const fresh = uniqueNames(graph);

  // The input: float32 NCHW from edgeseg, to what the model takes.
  let newInput: ValueInfoProto | undefined;
  if (inputLayout === 'nhwc' || input.elemType === ELEM.float16) {
    const dims = input.dims ?? [undefined, undefined, undefined, undefined];
    const nchw = inputLayout === 'nhwc' ? [dims[0], dims[3], dims[1], dims[2]] : dims;
    newInput = valueInfo(fresh('edgeseg_input'), ELEM.float, nchw);
    let from = newInput.name!;
    if (inputLayout === 'nhwc') {
      const to = input.elemType === ELEM.float16 ? fresh('edgeseg_input_nhwc') : input.name;
      before.push(node('Transpose', [from], [to], { perm: [0, 2, 3, 1] }));
      changes.push('the image goes in as NCHW and is transposed to the model’s NHWC input');
      from = to;
    }
    if (input.elemType === ELEM.float16) {
      before.push(node('Cast', [from], [input.name], { to: ELEM.float16 }));
      changes.push('the image goes in as float32 and is cast to the model’s float16 input');
    }
  }

  // The output: from the cut tensor, to float32 logits [N, C, h, w].
  if (reading.cut !== reading.output.name) {
    changes.push(
      `the output ${JSON.stringify(reading.output.name)} is taken before its final ${reading.removed.join(', ')}: edgeseg applies ${reading.form === 'argmax' ? 'the softmax and the argmax' : 'the activation'} to the scores itself, as to the model's own logits`,
    );
  }
  let tensor = reading.cut;
  let elemType = reading.elemType;
  if (reading.invert) {
    // Probabilities the graph could not undo (post_processing says the activation is fused): back to logits.
    const eps = fresh('edgeseg_eps');
    const one = fresh('edgeseg_one');
    constants.push(scalar(eps, 1e-7), scalar(one, 1));
    if (elemType !== ELEM.float) {
      extra.push(node('Cast', [tensor], [fresh('edgeseg_probabilities')], { to: ELEM.float }));
      tensor = extra[extra.length - 1]!.output![0]!;
      elemType = ELEM.float;
    }
    const clipped = fresh('edgeseg_clipped');
    const upper = fresh('edgeseg_upper');
    extra.push(node('Sub', [one, eps], [upper]), clipOp(opset, tensor, eps, upper, clipped));
    const logits = fresh('edgeseg_logits');
    if (reading.invert === 'sigmoid') {
      const rest = fresh('edgeseg_rest');
      const odds = fresh('edgeseg_odds');
      extra.push(node('Sub', [one, clipped], [rest]), node('Div', [clipped, rest], [odds]), node('Log', [odds], [logits]));
      changes.push('its sigmoid probabilities are turned back into logits, log(p / (1 − p)), as post_processing says they are fused');
    } else {
      extra.push(node('Log', [clipped], [logits]));
      changes.push('its softmax probabilities are turned back into log-probabilities, as post_processing says they are fused');
    }
    tensor = logits;
  }
  if (elemType !== ELEM.float) {
    const cast = fresh('edgeseg_logits_float');
    extra.push(node('Cast', [tensor], [cast], { to: ELEM.float }));
    if (elemType === ELEM.float16) changes.push('its float16 output is cast to float32');
    tensor = cast;
  }
  if (reading.layout === 'nhwc' && reading.rank === 4) {
    const transposed = fresh('edgeseg_logits_nchw');
    extra.push(node('Transpose', [tensor], [transposed], { perm: [0, 3, 1, 2] }));
    changes.push('its NHWC output is transposed to NCHW');
    tensor = transposed;
  }
  if (reading.rank === 3) {
    const unsqueezed = fresh('edgeseg_logits_4d');
    extra.push(...unsqueeze(opset, tensor, unsqueezed, fresh('edgeseg_axes'), constants));
    changes.push('its [N, h, w] output is read as one channel');
    tensor = unsqueezed;
  }
  const others = (graph.output ?? []).map((o) => o.name ?? '').filter((name) => name !== reading.output.name);
  const form: ModelForm = {
    input: { name: input.name, layout: inputLayout, type: elemName(input.elemType) },
    output: {
      name: reading.output.name,
      form: reading.form,
      layout: reading.layout,
      type: elemName(reading.output.elemType),
      channels: reading.channels,
    },
    ignoredOutputs: others,
    changes,
  };
  // Already the pipeline's form: the model as it was read.
  if (before.length === 0 && extra.length === 0 && tensor === reading.output.name && others.length === 0) return { proto, form };
  if (others.length) changes.push(`its other outputs (${others.map((o) => JSON.stringify(o)).join(', ')}) are left out`);

  const [n, c, h, w] = reading.dims;
  const output = valueInfo(tensor, ELEM.float, [n ?? 'N', c ?? 'C', h ?? 'h', w ?? 'w']);

  let changed = withOutputs(proto, [output], { before, after: extra });
  const newGraph: GraphProto = {
    ...changed.graph!,
    initializer: [...(changed.graph!.initializer ?? []), ...constants],
    // A tensor that becomes the output is not also listed as an inner value.
    value_info: changed.graph!.value_info?.filter((v) => v.name !== tensor),
  };
  if (newInput) newGraph.input = [newInput, ...(newGraph.input ?? []).filter((i) => i.name !== input.name)];
  changed = { ...changed, graph: newGraph };

  return { proto: changed, form };
}

/** `[1, 3, H, W]` or `[1, H, W, 3]`: by the dims, else by the first operator that reads the input, else the config. */
function readInputLayout(graph: GraphProto, input: ValueType, configured: TensorLayout | null): TensorLayout {
  const dims = input.dims;
  if (!dims || dims.length !== 4) {
    throw refuse('MODEL_INPUT_SHAPE', `the model's input is ${describe(input)}; edgeseg feeds an image [1, 3, H, W] or [1, H, W, 3]`);
  }
  if (configured) return configured;
  const second = dims[1];
  const last = dims[3];
  const fixed = (d: unknown): d is number => typeof d === 'number' && d > 0;
  if (second === 3 && last !== 3) return 'nchw';
  if (last === 3 && second !== 3) return 'nhwc';
  if (fixed(second) && fixed(last) && second !== 3 && last !== 3) {
    throw refuse(
      'MODEL_INPUT_SHAPE',
      `the model's input ${describe(input)} has ${second} channels, not 3; edgeseg feeds RGB or BGR images (input_channels 3)`,
    );
  }
  // Neither the dims nor their sizes tell: the first operator that reads the image does. ONNX's Conv is NCHW.
  const layout = layoutFromConsumers(graph, input.name, 0);
  if (layout) return layout;
  throw refuse(
    'MODEL_INPUT_SHAPE',
    `the model's input ${describe(input)} could be NCHW or NHWC and its graph does not tell: set network_input.layout to "nchw" or "nhwc" in inference_config.json`,
  );
}

const ELEMENTWISE = new Set(['Cast', 'Identity', 'Sub', 'Div', 'Mul', 'Add']);

function layoutFromConsumers(graph: GraphProto, value: string, depth: number): TensorLayout | null {
  if (depth > 8) return null;
  for (const consumer of consumersOf(graph, value)) {
    if (consumer.op_type === 'Conv' || consumer.op_type === 'ConvInteger' || consumer.op_type === 'QLinearConv') return 'nchw';
    if (isOp(consumer, 'Transpose')) {
      const perm = permOf(consumer);
      if (perm?.join() === '0,3,1,2') return 'nhwc';
      if (perm?.join() === '0,2,3,1') return 'nchw';
    }
    if (ELEMENTWISE.has(consumer.op_type ?? '')) {
      const found = layoutFromConsumers(graph, consumer.output?.[0] ?? '', depth + 1);
      if (found) return found;
    }
  }
  return null;
}

function permOf(node: NodeProto): number[] | undefined {
  const perm = node.attribute?.find((a) => a.name === 'perm')?.ints;
  return perm && Array.from(perm, Number);
}

/** The output to run: the one the config names, else the first whose reading fits the classes. */
function chooseOutput(
  graph: GraphProto,
  classCount: number,
  config: ModelFormConfig,
  opset: number,
  inputDims: Dims | undefined,
): OutputReading {
  const outputs = (graph.output ?? []).map(valueTypeOf);
  if (config.outputName !== null) {
    const named = outputs.find((o) => o.name === config.outputName);
    if (!named) {
      throw refuse(
        'MODEL_OUTPUT_SHAPE',
        `inference_config.json names the output ${JSON.stringify(config.outputName)}, which the model does not have; its outputs: ${outputs.map(describe).join(', ')}`,
      );
    }
    const reading = readOutput(graph, named, classCount, config, opset, inputDims);
    if (typeof reading === 'string') throw refuse('MODEL_OUTPUT_SHAPE', `the output ${describe(named)} ${reading}`);
    return reading;
  }
  const readings = outputs.map((o) => readOutput(graph, o, classCount, config, opset, inputDims));
  const fitting = readings.find((r): r is OutputReading => typeof r !== 'string');
  if (fitting) return fitting;
  const reasons = outputs.map((o, i) => `${describe(o)} ${readings[i] as string}`);
  throw refuse(
    'MODEL_OUTPUT_SHAPE',
    `${looksLike(outputs, classCount)}no output of the model fits ${classCount} classes: ${reasons.join('; ')}. edgeseg runs semantic segmentation models whose output is [1, C, h, w] or [1, h, w, C] with C = ${fittingCounts(classCount)}${outputs.length > 1 ? '; to use another output, name it in network_output.name in inference_config.json' : ''}`,
  );
}

/** What a model whose outputs fit no reading looks like, where its shapes say it. */
function looksLike(outputs: ValueType[], classCount: number): string {
  const dims = outputs.map((o) => o.dims);
  if (dims.some((d) => d?.length === 3 && typeof d[2] === 'number' && typeof d[1] === 'number' && (d[1] > 100 || d[2] > 100)))
    return 'it looks like an object detector (boxes and scores), not a semantic segmentation model: ';
  if (outputs.length >= 2 && dims.some((d) => d?.length === 4 && d[1] === 32))
    return 'it looks like an instance segmentation model (boxes and mask prototypes), not a semantic one: ';
  if (dims.every((d) => d?.length === 2)) return 'it gives a vector per image (a classifier or an embedding model), not a mask: ';
  if (dims.some((d) => d?.length === 4 && (d[1] === 3 || d[3] === 3)) && classCount !== 3 && classCount !== 4)
    return 'it gives an image (3 channels), as an image-to-image model does, not class scores: ';
  return '';
}

const FORMS: Record<string, OutputForm> = { Sigmoid: 'sigmoid', Softmax: 'softmax', LogSoftmax: 'log-softmax' };
const standardOp = (node: NodeProto | undefined): node is NodeProto => !!node && (!node.domain || node.domain === 'ai.onnx');
type Dims = (number | string | undefined)[];

/** How one graph output reads, or why it does not fit (a phrase after the output's name). */
function readOutput(
  graph: GraphProto,
  output: ValueType,
  classCount: number,
  config: ModelFormConfig,
  opset: number,
  inputDims: Dims | undefined,
): OutputReading | string {
  // Walk back from the output through ops that only move values, to an activation or an ArgMax.
  const passed: NodeProto[] = [];
  let node = producerOf(graph, output.name);
  let argmax: NodeProto | undefined;
  let activation: NodeProto | undefined;
  while (standardOp(node)) {
    const op = node.op_type ?? '';
    if (op === 'ArgMax') {
      argmax = node;
      // An ArgMax over probabilities: the activation before it goes too.
      let before = producerOf(graph, node.input?.[0] ?? '');
      while (standardOp(before) && (before.op_type === 'Identity' || before.op_type === 'Cast'))
        before = producerOf(graph, before.input?.[0] ?? '');
      if (standardOp(before) && FORMS[before.op_type ?? '']) activation = before;
      break;
    }
    if (FORMS[op]) {
      activation = node;
      break;
    }
    if (!PASS_THROUGH.has(op)) break;
    passed.push(node);
    node = producerOf(graph, node.input?.[0] ?? '');
  }
  const cutOp = activation ?? argmax;
  const finalOp = producerOf(graph, output.name);

  // What the package says, checked against what the graph shows.
  const pp = config.postProcessing;
  const graphForm = activation ? FORMS[activation.op_type!]! : null;
  if (pp && graphForm && (graphForm === 'sigmoid' ? 'sigmoid' : 'softmax') !== pp.type) {
    return `ends in a ${activation!.op_type}, but post_processing says ${pp.type}: correct post_processing.type in inference_config.json`;
  }
  if (pp && !pp.fused && graphForm && graphForm !== 'log-softmax') {
    return `ends in a ${activation!.op_type} (probabilities), but post_processing says "fused": false (logits): set "fused": true in inference_config.json`;
  }
  if (!cutOp && finalOp && UNDECIDABLE.has(finalOp.op_type ?? '') && !pp && looksLikeProbability(graph, finalOp)) {
    return `ends in a ${finalOp.op_type}, which may give probabilities or scores: say which in inference_config.json with "post_processing": {"type": "sigmoid" or "softmax", "fused": true (probabilities) or false (scores)}`;
  }
  if (!cutOp && output.elemType !== ELEM.float && output.elemType !== ELEM.float16) {
    return `gives ${elemName(output.elemType)} values, and no ArgMax in the graph makes them from scores; edgeseg reads float scores`;
  }

  // The cut tensor's dims: listed in the graph, else the output's followed back through the ops on the way.
  const cut = cutOp ? ((activation && argmax ? activation : cutOp).input?.[0] ?? '') : output.name;
  const listed = graph.value_info?.find((v) => v.name === cut);
  let dims: Dims | null = listed ? (valueTypeOf(listed).dims ?? null) : null;
  if (!dims && output.dims) {
    // Where nothing is cut, the output's own dims; else followed back through the ops after the cut.
    dims = cutOp ? dimsBefore(graph, output.dims, passed, opset) : output.dims;
    if (dims && argmax) {
      // The class axis the ArgMax took away (keepdims 0) or kept as 1 (keepdims 1): its size is not known here.
      const keep = intAttribute(argmax, 'keepdims', 1) === 1;
      const axis = normalise(intAttribute(argmax, 'axis', 0), dims.length + (keep ? 0 : 1));
      dims = keep ? dims.map((d, i) => (i === axis ? undefined : d)) : insertAxis(dims, axis);
    }
  }
  if (!dims) return 'is reshaped on its way out in a way edgeseg does not follow';
  if (dims.length !== 3 && dims.length !== 4) return `is a rank-${dims.length} tensor, not a mask [1, C, h, w] or [1, h, w, C]`;

  // The channel axis: the Softmax's or ArgMax's, else the dims', else the config's.
  let layout: TensorLayout | null = null;
  const axisOp = activation && activation.op_type !== 'Sigmoid' ? activation : argmax;
  if (axisOp) {
    const fallback = axisOp.op_type === 'ArgMax' ? 0 : opset >= 13 ? -1 : 1;
    const axis = normalise(intAttribute(axisOp, 'axis', fallback), dims.length);
    if (dims.length === 4 && axis === 1) layout = 'nchw';
    else if (dims.length === 4 && axis === 3) layout = 'nhwc';
    else
      return `ends in a ${axisOp.op_type} over axis ${axis} of a rank-${dims.length} tensor, which is not the class axis of [N, C, h, w] or [N, h, w, C]`;
  }
  let rank: 3 | 4 = 4;
  if (dims.length === 3) {
    // [N, h, w] scores: one channel, its axis squeezed away. Not boxes [N, anchors, 4 + classes], whose two sides
    // keep nothing of the image's shape: a mask's sides follow the input's (the same stride on both).
    if (!activation && !argmax && !keepsAspect(dims, inputDims))
      return `is [${dims.map((d) => d ?? '?').join(', ')}], not a mask of the input's shape`;
    rank = 3;
    layout = 'nchw';
    dims = [dims[0], 1, dims[1], dims[2]];
  }
  layout ??= config.outputLayout ?? layoutOfDims(dims, classCount);
  if (!layout) {
    if (typeof dims[1] === 'number' && typeof dims[3] === 'number' && fits(dims[1], classCount) && fits(dims[3], classCount)) {
      return `could be NCHW or NHWC (${dims[1]} and ${dims[3]} channels both fit ${classCount} classes): set network_output.layout to "nchw" or "nhwc" in inference_config.json`;
    }
    return `has ${describeChannels(dims)} channels, which fit none of ${fittingCounts(classCount)}`;
  }
  const nchw = layout === 'nchw' || rank === 3 ? dims : [dims[0], dims[3], dims[1], dims[2]];
  const channels = typeof nchw[1] === 'number' && nchw[1] > 0 ? nchw[1] : null;
  if (channels !== null && !fits(channels, classCount)) {
    return `has ${channels} channels (${layout.toUpperCase()}), which fit none of ${fittingCounts(classCount)}`;
  }
  if (activation?.op_type === 'Softmax' && channels === 1) return 'is a Softmax over one channel, which is 1 everywhere';

  // The cut tensor's type: known where nothing is cut or the graph lists it; else a Cast to float32 is added.
  let elemType: number | undefined = output.elemType;
  if (cut !== output.name)
    elemType = listed ? valueTypeOf(listed).elemType : passed.some((p) => isOp(p, 'Cast')) || argmax ? undefined : output.elemType;
  if (elemType !== undefined && elemType !== ELEM.float && elemType !== ELEM.float16) {
    return `gives ${elemName(elemType)} scores; edgeseg reads float32 or float16`;
  }

  let form: OutputForm = argmax ? 'argmax' : (graphForm ?? 'logits');
  let invert: OutputReading['invert'];
  if (!cutOp && pp?.fused) {
    // The package says the activation is in the graph, where the graph shows none edgeseg can take out.
    invert = pp.type;
    form = pp.type;
  }
  // From the cut towards the output: the activation, the ArgMax, then the ops that moved values after them.
  const removed = [...(activation ? [activation] : []), ...(argmax ? [argmax] : []), ...passed.slice().reverse()];
  return {
    output,
    form,
    cut,
    removed: removed.map((n) => n.op_type ?? ''),
    layout,
    rank,
    channels,
    elemType,
    dims: nchw,
    ...(invert ? { invert } : {}),
  };
}

const normalise = (axis: number, rank: number) => (axis < 0 ? axis + rank : axis);

/** Whether [N, h, w] has the sides of an NCHW or NHWC input [N, 3, H, W] scaled by one stride (within a quarter). */
function keepsAspect(dims: Dims, input: Dims | undefined): boolean {
  const [, h, w] = dims;
  if (typeof h !== 'number' || typeof w !== 'number' || !input) return true;
  const sides = input[1] === 3 ? [input[2], input[3]] : [input[1], input[2]];
  const [H, W] = sides;
  if (typeof H !== 'number' || typeof W !== 'number' || H <= 0 || W <= 0) return true;
  const ratio = h / H / (w / W);
  return ratio > 0.75 && ratio < 1.34;
}

function insertAxis(dims: Dims, at: number): Dims {
  return [...dims.slice(0, at), undefined, ...dims.slice(at)];
}

/** Whether a final Clip, Div… plausibly gives probabilities (a Clip to [0, 1]); the others are always asked about. */
function looksLikeProbability(graph: GraphProto, node: NodeProto): boolean {
  if (node.op_type !== 'Clip') return true;
  const min = node.input?.[1] ? constantValues(graph, node.input[1])?.[0] : floatAttribute(node, 'min', -Infinity);
  const max = node.input?.[2] ? constantValues(graph, node.input[2])?.[0] : floatAttribute(node, 'max', Infinity);
  return min === 0 && max === 1;
}

/**
 * The dims of the value the first of `passed` reads, from the output's: `passed` runs from the output back.
 * Null where a Reshape (or a Squeeze without axes) on the way leaves them unknown.
 */
function dimsBefore(graph: GraphProto, outputDims: Dims, passed: NodeProto[], opset: number): Dims | null {
  let dims: Dims = [...outputDims];
  for (const p of passed) {
    const op = p.op_type;
    if (op === 'Transpose') {
      const perm = permOf(p) ?? [...dims.keys()].reverse();
      const before: Dims = new Array<number | string | undefined>(dims.length);
      perm.forEach((from, to) => (before[from] = dims[to]));
      dims = before;
    } else if (op === 'Resize') {
      // A Resize changes the spatial sizes, not the channels (nor the rank).
      dims = dims.map((d, i) => (dims.length === 4 && (i === 2 || i === 3) ? undefined : d));
    } else if (op === 'Squeeze' || op === 'Unsqueeze') {
      const axes = opset >= 13 ? (p.input?.[1] ? constantValues(graph, p.input[1]) : undefined) : intsAttribute(p, 'axes');
      if (!axes) return null;
      if (op === 'Squeeze') {
        const rank = dims.length + axes.length;
        const at = new Set(axes.map((a) => normalise(a, rank)));
        const out: Dims = [];
        let k = 0;
        for (let i = 0; i < rank; i++) out.push(at.has(i) ? 1 : dims[k++]);
        dims = out;
      } else {
        const at = new Set(axes.map((a) => normalise(a, dims.length)));
        dims = dims.filter((_, i) => !at.has(i));
      }
    } else if (op !== 'Identity' && op !== 'Cast') return null;
  }
  return dims;
}

const fits = (channels: number, classCount: number) => channels === classCount || channels === classCount - 1 || channels === 1;

/** The channel counts that fit `classCount` classes, in words. */
function fittingCounts(classCount: number): string {
  if (classCount <= 2) return `${classCount === 2 ? '2 or ' : ''}1 (one class against the background)`;
  return `${classCount}, ${classCount - 1} (no background channel) or 1 (one class against the background)`;
}

function layoutOfDims(dims: (number | string | undefined)[], classCount: number): TensorLayout | null {
  const second = dims[1];
  const last = dims[3];
  const secondFits = typeof second === 'number' && fits(second, classCount);
  const lastFits = typeof last === 'number' && fits(last, classCount);
  if (second === 1 && last === 1) return 'nchw'; // one channel: either order is the same bytes
  if (secondFits && !lastFits) return 'nchw';
  if (lastFits && !secondFits) return 'nhwc';
  if (!secondFits && !lastFits && typeof second !== 'number' && typeof last === 'number' && last > 8) return 'nchw';
  if (!secondFits && !lastFits && typeof second !== 'number' && typeof last !== 'number') return 'nchw';
  return null;
}

function describeChannels(dims: (number | string | undefined)[]): string {
  const second = dims[1];
  const last = dims[3];
  return `${typeof second === 'number' ? second : '?'} (as NCHW) or ${typeof last === 'number' ? last : '?'} (as NHWC)`;
}

/** `name float32 [1, 3, 320, 320]`, for messages. */
export function describe(v: ValueType): string {
  const dims = v.dims ? `[${v.dims.map((d) => (typeof d === 'number' ? (d > 0 ? d : '?') : d || '?')).join(', ')}]` : '[?]';
  return `${JSON.stringify(v.name)} ${elemName(v.elemType)} ${dims}`;
}

function node(opType: string, input: string[], output: string[], attributes: Record<string, number | number[]> = {}): NodeProto {
  return {
    op_type: opType,
    input,
    output,
    attribute: Object.entries(attributes).map(([name, value]) =>
      Array.isArray(value) ? { name, type: 7, ints: BigInt64Array.from(value.map(BigInt)) } : { name, type: 2, i: BigInt(value) },
    ),
  };
}

function scalar(name: string, value: number): TensorProto {
  return { name, data_type: ELEM.float, dims: new BigInt64Array(0), float_data: Float32Array.of(value) };
}

/** Clip(x, lo, hi) as the model's opset spells it (inputs since 11, attributes before). */
function clipOp(opset: number, x: string, lo: string, hi: string, out: string): NodeProto {
  if (opset >= 11) return node('Clip', [x, lo, hi], [out]);
  return {
    op_type: 'Clip',
    input: [x],
    output: [out],
    attribute: [
      { name: 'min', type: 1, f: 1e-7 },
      { name: 'max', type: 1, f: 1 - 1e-7 },
    ],
  };
}

/** Unsqueeze(x, axes=[1]) as the model's opset spells it (an input since 13, an attribute before). */
function unsqueeze(opset: number, x: string, out: string, axesName: string, constants: TensorProto[]): NodeProto[] {
  if (opset >= 13) {
    constants.push({ name: axesName, data_type: ELEM.int64, dims: BigInt64Array.of(1n), int64_data: BigInt64Array.of(1n) });
    return [node('Unsqueeze', [x, axesName], [out])];
  }
  return [node('Unsqueeze', [x], [out], { axes: [1] })];
}

/** Names not used by the graph: `edgeseg_x`, else `edgeseg_x_2`… */
function uniqueNames(graph: GraphProto): (base: string) => string {
  const used = new Set<string>();
  const add = (g: GraphProto) => {
    for (const n of g.node ?? []) for (const name of [...(n.input ?? []), ...(n.output ?? [])]) used.add(name);
    for (const v of [...(g.input ?? []), ...(g.output ?? []), ...(g.value_info ?? [])]) used.add(v.name ?? '');
    for (const t of g.initializer ?? []) used.add(t.name ?? '');
  };
  add(graph);
  return (base) => {
    let name = base;
    for (let i = 2; used.has(name); i++) name = `${base}_${i}`;
    used.add(name);
    return name;
  };
}
