"""Writes variants of a converted people model, the graph forms tried for onnxruntime-web's speed.

    /usr/bin/python3 models/people/speed_variants.py general OUT_DIR
    npx tsx models/people/speed.ts --model general OUT_DIR/*.onnx

Each variant computes the same function as the committed weights.onnx (speed.ts checks it against LiteRT);
only the ops onnxruntime runs differ. The measured outcome is in models/people/README.md.
"""

import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, shape_inference

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import convert  # noqa: E402


def attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def rewrite(model, replace):
    """Rebuilds the graph with replace(node, shapes, add_initializer) → the nodes standing for node."""
    model = shape_inference.infer_shapes(model)
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim] for v in model.graph.value_info}
    weights = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    counter = [0]

    def add(value, hint):
        counter[0] += 1
        name = f"variant_{hint}_{counter[0]}"
        model.graph.initializer.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    nodes = [n for node in model.graph.node for n in replace(node, shapes, weights, add)]
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    del model.graph.value_info[:]
    used = {name for n in nodes for name in n.input}
    kept = [t for t in model.graph.initializer if t.name in used]
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept)
    onnx.checker.check_model(model)
    return model


def resize_as_conv_transpose(node, shapes, weights, add):
    # A 2× bilinear half-pixel upsample is an edge Pad and a depthwise 4×4 stride-2 ConvTranspose.
    if node.op_type != "Resize":
        return [node]
    c, h, w = shapes[node.input[0]][1:]
    assert shapes[node.output[0]][2:] == [2 * h, 2 * w] and attrs(node)["coordinate_transformation_mode"] == b"half_pixel"
    taps = np.array([0.25, 0.75, 0.75, 0.25], np.float32)
    padded = node.output[0] + "_edge"
    return [helper.make_node("Pad", [node.input[0], add(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "pads")], [padded], mode="edge"),
            helper.make_node("ConvTranspose", [padded, add(np.tile(np.outer(taps, taps), (c, 1, 1, 1)).astype(np.float32), "up")],
                             list(node.output), group=c, strides=[2, 2], kernel_shape=[4, 4], pads=[3, 3, 3, 3])]


def depthwise(node):
    return node.op_type == "Conv" and attrs(node).get("group", 1) > 1


def depthwise_as_conv_transpose(node, shapes, weights, add):
    # A stride-1 convolution is the transposed convolution with the kernel flipped and pads k − 1 − p.
    a = attrs(node)
    if not depthwise(node) or a["strides"] != [1, 1]:
        return [node]
    w = weights[node.input[1]]
    k = w.shape[2]
    return [helper.make_node("ConvTranspose", [node.input[0], add(w[:, :, ::-1, ::-1], "flipped"), *node.input[2:]], list(node.output),
                             group=a["group"], kernel_shape=[k, k], strides=[1, 1], pads=[k - 1 - p for p in a["pads"]])]


def depthwise_explicit_pad(node, shapes, weights, add):
    a = attrs(node)
    if not depthwise(node) or not any(a["pads"]):
        return [node]
    t, l, b, r = a["pads"]
    padded = node.output[0] + "_padded"
    a["pads"] = [0, 0, 0, 0]
    return [helper.make_node("Pad", [node.input[0], add(np.array([0, 0, t, l, 0, 0, b, r], np.int64), "pads")], [padded]),
            helper.make_node("Conv", [padded, *node.input[1:]], list(node.output), **a)]


def hardswish_as_hardsigmoid_mul(node, shapes, weights, add):
    # What onnxruntime runs for HardSwish anyway (its CPU provider expands the function): spelt out.
    if node.op_type != "HardSwish":
        return [node]
    gate = node.output[0] + "_gate"
    return [helper.make_node("HardSigmoid", [node.input[0]], [gate], alpha=1 / 6, beta=0.5),
            helper.make_node("Mul", [node.input[0], gate], list(node.output))]


def main():
    name, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    committed = onnx.load(os.path.join(convert.HERE, name, "weights.onnx"))
    # The graph as converted before the decoder's 1×1 Conv moved ahead of its Resize.
    convert.Converter.pointwise_conv_before_resize = lambda self: None
    tflite = convert.MODELS[name]
    before, _ = convert.convert_file(os.path.join(convert.NPM_PACKAGE, tflite), tflite.removesuffix(".tflite"))
    variants = {
        "resize_then_conv": before,
        "resize_as_conv_transpose": rewrite(committed, resize_as_conv_transpose),
        "depthwise_as_conv_transpose": rewrite(committed, depthwise_as_conv_transpose),
        "depthwise_explicit_pad": rewrite(committed, depthwise_explicit_pad),
        "hardswish_as_hardsigmoid_mul": rewrite(committed, hardswish_as_hardsigmoid_mul),
    }
    for variant, model in variants.items():
        onnx.save(model, os.path.join(out_dir, f"{variant}.onnx"))
        print(os.path.join(out_dir, f"{variant}.onnx"))


if __name__ == "__main__":
    main()
