// Removes a model's trailing bilinear Resize to the input size, so that the logits leave the runtime small.
//
// Models such as torchvision's LRASPP end with `F.interpolate(logits, size=input_size, mode="bilinear",
// align_corners=False)`: an ONNX Resize that writes C × H × W floats which postprocessing then reads
// and resamples again. Postprocessing can compute those upsampled values itself, only where it needs
// them (see src/pipeline/onnx-linear-resize.ts), so the worker loads a copy of the model without that
// node. The cut is made on the model as read (onnx-wire.ts); every other field is kept as it was.

import {
  defaultOpset,
  hasAttribute,
  intAttribute,
  isOp,
  producerOf,
  textAttribute,
  valueInfo,
  valueTypeOf,
  withOutputs,
  ELEM,
} from './onnx-graph.js';
import type { ModelProto, NodeProto } from './onnx-schema.js';

/** What the cut model computes and what the removed Resize would have made of it. */
export interface TrailingResizeCut {
  /** The model without the Resize: its single output is the Resize's input, `[N, C, h, w]`. */
  model: ModelProto;
  /** The original model's declared output shape, `[N, C, H, W]` (H, W the network input's). */
  outputDims: [number, number, number, number];
  /** The Resize's input tensor, now the graph's output. */
  outputName: string;
}

/**
 * The cut model, or null when the model does not end in a Resize that is safe to absorb: one graph
 * output, produced by a Resize (opset ≥ 11) with mode `linear`, `half_pixel` or `pytorch_half_pixel`
 * coordinates, no antialias, no axes, `stretch` aspect policy, float output `[N, C, H, W]` with
 * H × W the network input's (both fixed) and C > 1.
 */
export function cutTrailingResize(model: ModelProto): TrailingResizeCut | null {
  const graph = model.graph;
  if (!graph || defaultOpset(model) < 11) return null;
  if (graph.output?.length !== 1 || !graph.input?.length) return null;
  const output = valueTypeOf(graph.output[0]!);
  const input = valueTypeOf(graph.input[0]!);
  if (output.elemType !== ELEM.float || !output.dims || !input.dims) return null;
  const [n, c, h, w] = output.dims;
  const fixed = (d: number | string | undefined): d is number => typeof d === 'number' && d > 0;
  if (output.dims.length !== 4 || !fixed(n) || !fixed(c) || !fixed(h) || !fixed(w) || c === 1) return null;
  if (input.dims.length !== 4 || input.dims[2] !== h || input.dims[3] !== w) return null;
  const producer = producerOf(graph, output.name);
  if (!producer || !isAbsorbableResize(producer)) return null;
  const source = producer.input?.[0];
  if (!source || graph.input.some((i) => i.name === source)) return null;
  const cut = withOutputs(model, [valueInfo(source, ELEM.float, [n, c, 'edgeseg_logit_height', 'edgeseg_logit_width'])]);
  return { model: cut, outputDims: [n, c, h, w], outputName: source };
}

function isAbsorbableResize(node: NodeProto): boolean {
  if (!isOp(node, 'Resize')) return false;
  if (textAttribute(node, 'mode', 'nearest') !== 'linear') return false;
  if (!['half_pixel', 'pytorch_half_pixel'].includes(textAttribute(node, 'coordinate_transformation_mode', 'half_pixel'))) return false;
  if (intAttribute(node, 'antialias', 0) !== 0 || hasAttribute(node, 'axes')) return false;
  return textAttribute(node, 'keep_aspect_ratio_policy', 'stretch') === 'stretch';
}
