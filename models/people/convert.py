"""Converts MediaPipe's selfie segmentation .tflite models to ONNX packages in the platform's current layout.

    /usr/bin/python3 models/people/convert.py            # both models from @mediapipe/selfie_segmentation
    /usr/bin/python3 models/people/convert.py IN.tflite OUT_DIR [--name NAME]

The graph is rebuilt in NCHW throughout (the platform's contract is a [1,3,H,W] input): weights are
permuted once at conversion, spatial ops get NCHW attributes, so no Transpose is left for the runtime to
execute per frame. fp16 weights behind DEQUANTIZE are widened to float32 constants, as XNNPACK does when
it loads them. The final LOGISTIC is dropped: a one-channel platform model outputs logits and edgeseg's
pipeline applies the sigmoid, as the reference does. An op this file does not know stops the conversion
with its name before anything is written.
"""

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tflite_reader import TFLiteFormatError, read_model  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NPM_PACKAGE = os.path.join(ROOT, "node_modules", "@mediapipe", "selfie_segmentation")
OPSET = 17

MODELS = {
    "general": "selfie_segmentation.tflite",
    "landscape": "selfie_segmentation_landscape.tflite",
}

# TFLite's ActivationFunctionType → the ONNX nodes appended after the op.
FUSED_ACTIVATIONS = {0: None, 1: ("Relu", {}), 2: ("Clip", (-1.0, 1.0)), 3: ("Clip", (0.0, 6.0))}
SAME, VALID = 0, 1  # TFLite's Padding enum


class UnsupportedOpError(ValueError):
    """The model uses an op (or an option of one) that the converter does not translate."""


def nhwc_to_nchw(shape):
    n, h, w, c = shape
    return [n, c, h, w]


def same_pads(size_in, size_out, kernel, stride, dilation=1):
    """TFLite's SAME padding for one axis as (begin, end): the extra pixel goes at the end."""
    total = max((size_out - 1) * stride + (kernel - 1) * dilation + 1 - size_in, 0)
    return total // 2, total - total // 2


class Converter:
    def __init__(self, model):
        self.model = model
        self.nodes, self.initializers = [], []
        self.names = {}  # TFLite tensor index → ONNX value name
        self.constants = {}  # TFLite tensor index → numpy value (after DEQUANTIZE)
        self.counter = 0

    def fresh(self, hint):
        self.counter += 1
        return f"{hint}_{self.counter}"

    def tensor(self, index):
        return self.model.tensors[index]

    def const(self, index):
        if index in self.constants:
            return self.constants[index]
        data = self.tensor(index).data
        if data is None:
            raise UnsupportedOpError(f"tensor {self.tensor(index).name!r} must be a constant here")
        return data

    def initializer(self, value, hint):
        name = self.fresh(hint)
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def value(self, index):
        """The ONNX name of an activation, or of a constant operand (made 4-D NCHW, as it broadcasts)."""
        if index in self.names:
            return self.names[index]
        value = self.const(index).astype(np.float32)
        # NHWC broadcasting aligns trailing axes: pad to 4-D, then move channels to axis 1.
        value = value.reshape((1,) * (4 - value.ndim) + value.shape).transpose(0, 3, 1, 2)
        return self.initializer(value, "const")

    def emit(self, op_type, inputs, attrs=None, output=None):
        output = output or self.fresh(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [output], **(attrs or {})))
        return output

    def activation(self, x, code, out_index):
        if code not in FUSED_ACTIVATIONS:
            raise UnsupportedOpError(f"fused activation {code} of {self.tensor(out_index).name!r}")
        act = FUSED_ACTIVATIONS[code]
        if act is None:
            return x
        if act[0] == "Clip":
            lo = self.initializer(np.array(act[1][0], np.float32), "min")
            hi = self.initializer(np.array(act[1][1], np.float32), "max")
            return self.emit("Clip", [x, lo, hi])
        return self.emit(act[0], [x])

    def spatial(self, op, kh, kw, stride_h, stride_w, dil_h=1, dil_w=1):
        padding = op.options.scalar(0, "<b")
        if padding == VALID:
            return [0, 0, 0, 0]
        _, ih, iw, _ = self.tensor(op.inputs[0]).shape
        _, oh, ow, _ = self.tensor(op.outputs[0]).shape
        top, bottom = same_pads(ih, oh, kh, stride_h, dil_h)
        left, right = same_pads(iw, ow, kw, stride_w, dil_w)
        return [top, left, bottom, right]

    def bias(self, op, channels):
        if len(op.inputs) > 2 and op.inputs[2] >= 0:
            return [self.initializer(self.const(op.inputs[2]).astype(np.float32).reshape(channels), "bias")]
        return []

    # One method per TFLite op: each returns the ONNX name of its output.

    def op_CONV_2D(self, op):
        # Conv2DOptions: 0 padding, 1 stride_w, 2 stride_h, 3 activation, 4 dilation_w, 5 dilation_h.
        o = op.options
        w = self.const(op.inputs[1]).astype(np.float32)  # OHWI
        cout, kh, kw, _ = w.shape
        sw, sh, dw, dh = o.scalar(1, "<i"), o.scalar(2, "<i"), o.scalar(4, "<i", 1), o.scalar(5, "<i", 1)
        attrs = dict(kernel_shape=[kh, kw], strides=[sh, sw], dilations=[dh, dw],
                     pads=self.spatial(op, kh, kw, sh, sw, dh, dw))
        y = self.emit("Conv", [self.value(op.inputs[0]), self.initializer(w.transpose(0, 3, 1, 2), "weight")]
                      + self.bias(op, cout), attrs)
        return self.activation(y, o.scalar(3, "<b"), op.outputs[0])

    def op_DEPTHWISE_CONV_2D(self, op):
        # DepthwiseConv2DOptions: 0 padding, 1 stride_w, 2 stride_h, 3 multiplier, 4 activation, 5/6 dilation.
        o = op.options
        w = self.const(op.inputs[1]).astype(np.float32)  # [1, kh, kw, cin * multiplier]
        _, kh, kw, cout = w.shape
        cin = self.tensor(op.inputs[0]).shape[3]
        sw, sh, dw, dh = o.scalar(1, "<i"), o.scalar(2, "<i"), o.scalar(5, "<i", 1), o.scalar(6, "<i", 1)
        attrs = dict(kernel_shape=[kh, kw], strides=[sh, sw], dilations=[dh, dw], group=cin,
                     pads=self.spatial(op, kh, kw, sh, sw, dh, dw))
        y = self.emit("Conv", [self.value(op.inputs[0]), self.initializer(w.transpose(3, 0, 1, 2), "weight")]
                      + self.bias(op, cout), attrs)
        return self.activation(y, o.scalar(4, "<b"), op.outputs[0])

    def op_Convolution2DTransposeBias(self, op):
        # MediaPipe's custom op (mediapipe/util/tflite/operations/transpose_conv_bias.cc): its options are a
        # raw TfLiteTransposeConvParams {padding (1 SAME, 2 VALID), stride_width, stride_height} as int32,
        # weights OHWI, a bias; SAME pads max(0, k - (in - 1) % s - 1), half of it (rounded down) before.
        if len(op.custom_options) < 12:
            raise UnsupportedOpError("Convolution2DTransposeBias without its 12 bytes of options")
        padding, sw, sh = np.frombuffer(op.custom_options[:12], "<i4")
        w = self.const(op.inputs[1]).astype(np.float32)  # OHWI
        cout, kh, kw, _ = w.shape
        _, ih, iw, _ = self.tensor(op.inputs[0]).shape
        pads = [0, 0, 0, 0]
        if padding == 1:
            ph = max(0, kh - (ih - 1) % sh - 1)
            pw = max(0, kw - (iw - 1) % sw - 1)
            pads = [ph // 2, pw // 2, ph - ph // 2, pw - pw // 2]
        elif padding != 2:
            raise UnsupportedOpError(f"Convolution2DTransposeBias with padding {padding}")
        attrs = dict(kernel_shape=[kh, kw], strides=[int(sh), int(sw)], pads=pads)
        return self.emit("ConvTranspose", [self.value(op.inputs[0]),
                                           self.initializer(w.transpose(3, 0, 1, 2), "weight"),
                                           self.initializer(self.const(op.inputs[2]).astype(np.float32), "bias")],
                         attrs)

    def global_pool(self, op):
        """An average over the whole spatial extent (the squeeze of squeeze-and-excitation blocks)."""
        return self.emit("GlobalAveragePool", [self.value(op.inputs[0])])

    def op_AVERAGE_POOL_2D(self, op):
        # Pool2DOptions: 0 padding, 1 stride_w, 2 stride_h, 3 filter_w, 4 filter_h, 5 activation.
        o = op.options
        _, ih, iw, _ = self.tensor(op.inputs[0]).shape
        fw, fh = o.scalar(3, "<i"), o.scalar(4, "<i")
        if (fh, fw) == (ih, iw) and o.scalar(0, "<b") == VALID:
            y = self.global_pool(op)
        else:
            sw, sh = o.scalar(1, "<i"), o.scalar(2, "<i")
            # TFLite averages over the pixels inside the image only.
            y = self.emit("AveragePool", [self.value(op.inputs[0])],
                          dict(kernel_shape=[fh, fw], strides=[sh, sw], pads=self.spatial(op, fh, fw, sh, sw),
                               count_include_pad=0))
        return self.activation(y, o.scalar(5, "<b"), op.outputs[0])

    def op_MEAN(self, op):
        # ReducerOptions: 0 keep_dims. Only the spatial mean with the dims kept (NHWC axes 1 and 2).
        axes = sorted(int(a) % 4 for a in np.atleast_1d(self.const(op.inputs[1])))
        if axes != [1, 2] or not op.options or not op.options.scalar(0, "<b"):
            raise UnsupportedOpError(f"MEAN over axes {axes} without keep_dims (only the spatial mean is translated)")
        return self.global_pool(op)

    def elementwise(self, op_type, op):
        y = self.emit(op_type, [self.value(op.inputs[0]), self.value(op.inputs[1])])
        return self.activation(y, op.options.scalar(0, "<b") if op.options else 0, op.outputs[0])

    def op_ADD(self, op):
        return self.elementwise("Add", op)

    def op_MUL(self, op):
        return self.elementwise("Mul", op)

    def op_RELU(self, op):
        return self.emit("Relu", [self.value(op.inputs[0])])

    def op_HARD_SWISH(self, op):
        return self.emit("HardSwish", [self.value(op.inputs[0])])

    def op_LOGISTIC(self, op):
        return self.emit("Sigmoid", [self.value(op.inputs[0])])

    def op_RESIZE_BILINEAR(self, op):
        # ResizeBilinearOptions: 2 align_corners, 3 half_pixel_centers; neither is TF's asymmetric mapping.
        o = op.options
        align, half = (o.scalar(2, "<b"), o.scalar(3, "<b")) if o else (0, 0)
        mode = "align_corners" if align else "half_pixel" if half else "asymmetric"
        n, c = 1, self.tensor(op.inputs[0]).shape[3]
        h, w = (int(v) for v in self.const(op.inputs[1]))
        sizes = self.initializer(np.array([n, c, h, w], np.int64), "sizes")
        return self.emit("Resize", [self.value(op.inputs[0]), "", "", sizes],
                         dict(mode="linear", coordinate_transformation_mode=mode))

    def op_DEQUANTIZE(self, op):
        source = self.tensor(op.inputs[0])
        if source.data is None or source.dtype != np.float16:
            raise UnsupportedOpError("DEQUANTIZE of anything but a constant float16 tensor")
        self.constants[op.outputs[0]] = source.data.astype(np.float32)
        return None

    def convert(self, name):
        model = self.model
        if len(model.inputs) != 1 or len(model.outputs) != 1:
            raise UnsupportedOpError(f"{len(model.inputs)} inputs and {len(model.outputs)} outputs (one of each expected)")
        # Every op must be known before anything is built, so the error names all of them at once.
        unknown = sorted({op.op for op in model.operators if not hasattr(self, f"op_{op.op}")})
        if unknown:
            raise UnsupportedOpError(f"the model uses ops the converter does not translate: {', '.join(unknown)}")
        input_tensor = self.tensor(model.inputs[0])
        if len(input_tensor.shape) != 4 or input_tensor.shape[3] != 3:
            raise UnsupportedOpError(f"input of shape {list(input_tensor.shape)} (NHWC with 3 channels expected)")
        self.names[model.inputs[0]] = "input"
        output_index = model.outputs[0]
        for op in model.operators:
            if op.op == "LOGISTIC" and op.outputs[0] == output_index:
                # The graph ends in a sigmoid: output its input (logits), the pipeline applies it.
                self.nodes.append(helper.make_node("Identity", [self.value(op.inputs[0])], ["logits"]))
                self.names[output_index] = "logits"
                continue
            result = getattr(self, f"op_{op.op}")(op)
            if result is not None:
                self.names[op.outputs[0]] = result
        if output_index not in self.names:
            raise UnsupportedOpError("the graph's output is not produced by any op")
        output_name = self.names[output_index]
        output_shape = nhwc_to_nchw(self.tensor(output_index).shape)
        if output_name != "logits":
            self.nodes.append(helper.make_node("Identity", [output_name], ["probabilities"]))
            output_name = "probabilities"
        self.fold_output_identity()
        self.pointwise_conv_before_resize()
        graph = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, nhwc_to_nchw(input_tensor.shape))],
            [helper.make_tensor_value_info(output_name, TensorProto.FLOAT, output_shape)],
            self.initializers)
        onnx_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                       producer_name="edgeseg models/people/convert.py")
        onnx_model.ir_version = 8
        onnx.checker.check_model(onnx_model, full_check=True)
        return onnx_model

    def pointwise_conv_before_resize(self):
        """Swaps each bilinear Resize with the 1×1 Conv that alone reads it: the Conv then runs at the low resolution.

        Both are linear, and a linear Resize's weights sum to 1 at every pixel, so Conv(Resize(x)) + b equals
        Resize(Conv(x) + b) up to float rounding. MediaPipe's decoder upsamples and then mixes channels with a
        1×1 convolution; mixing first does a quarter of that convolution's work, and the Resize interpolates
        the Conv's channels (24 and 16) instead of its input's (128 and 24). Measured in onnxruntime-web's
        WASM build (models/people/speed.ts): 6–13% less CPU time per run, both models.
        """
        readers = {}
        for node in self.nodes:
            for name in node.input:
                readers.setdefault(name, []).append(node)
        weights = {t.name: t for t in self.initializers}
        for i, resize in enumerate(self.nodes):
            if resize.op_type != "Resize" or len(readers.get(resize.output[0], [])) != 1:
                continue
            conv = readers[resize.output[0]][0]
            attrs = {a.name: helper.get_attribute_value(a) for a in conv.attribute}
            kernel = weights[conv.input[1]].dims if conv.op_type == "Conv" and conv.input[1] in weights else None
            if (kernel is None or list(kernel[2:]) != [1, 1] or attrs.get("group", 1) != 1
                    or any(attrs.get("pads", [0])) or any(s != 1 for s in attrs.get("strides", [1]))
                    or conv.input[0] != resize.output[0]):
                continue
            sizes = numpy_helper.to_array(weights[resize.input[3]]).copy()
            sizes[1] = kernel[0]
            low = self.fresh("conv")
            mixed = helper.make_node("Conv", [resize.input[0], *conv.input[1:]], [low], **attrs)
            upsampled = helper.make_node("Resize", [low, "", "", self.initializer(sizes, "sizes")], list(conv.output),
                                         **{a.name: helper.get_attribute_value(a) for a in resize.attribute})
            self.nodes[i] = mixed
            self.nodes[self.nodes.index(conv)] = upsampled
        used = {name for node in self.nodes for name in node.input}
        self.initializers = [t for t in self.initializers if t.name in used]

    def fold_output_identity(self):
        """Renames the output's producer instead of leaving an Identity node on the hot path."""
        last = self.nodes[-1]
        if last.op_type != "Identity":
            return
        source, target = last.input[0], last.output[0]
        self.nodes.pop()
        for node in self.nodes:
            for k, out in enumerate(node.output):
                if out == source:
                    node.output[k] = target


def convert_file(tflite_path, name):
    with open(tflite_path, "rb") as f:
        data = f.read()
    return Converter(read_model(data)).convert(name), data


def write_package(onnx_model, tflite_bytes, tflite_name, out_dir):
    """Writes the package into a temporary folder first, so a failure leaves out_dir as it was."""
    graph_input = onnx_model.graph.input[0].type.tensor_type.shape.dim
    height, width = graph_input[2].dim_value, graph_input[3].dim_value
    parent = os.path.dirname(os.path.abspath(out_dir))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".convert-", dir=parent)
    os.chmod(staging, 0o755)
    try:
        onnx.save(onnx_model, os.path.join(staging, "weights.onnx"))
        config = {
            "image_pre_processing": {"auto-orient": {"enabled": True}},
            "network_input": {
                "training_input_size": {"height": height, "width": width},
                "dynamic_spatial_size_supported": False,
                "color_mode": "rgb",
                "resize_mode": "stretch",
                "input_channels": 3,
                "scaling_factor": 255,
            },
            "post_processing": {"type": "sigmoid", "fused": False},
        }
        with open(os.path.join(staging, "inference_config.json"), "w") as f:
            json.dump(config, f, indent=2)
            f.write("\n")
        with open(os.path.join(staging, "class_names.txt"), "w") as f:
            f.write("background\nperson\n")
        shutil.copy(os.path.join(HERE, "LICENSE"), os.path.join(staging, "LICENSE"))
        version = npm_version()
        with open(os.path.join(staging, "NOTICE"), "w") as f:
            f.write(
                f"weights.onnx is converted from {tflite_name} of the npm package @mediapipe/selfie_segmentation"
                f"{' ' + version if version else ''}\n(MediaPipe Selfie Segmentation, Copyright The MediaPipe Authors, "
                "Apache License 2.0, see LICENSE)\n"
                f"sha256 of the original: {hashlib.sha256(tflite_bytes).hexdigest()}\n"
                "Converted by models/people/convert.py of edgeseg: the graph is rebuilt in NCHW, fp16 weights are\n"
                "widened to float32, and the final sigmoid is left to the consumer (the output is its input).\n")
        if os.path.isdir(out_dir):
            shutil.rmtree(out_dir)
        os.replace(staging, out_dir)
    finally:
        if os.path.isdir(staging):
            shutil.rmtree(staging)


def npm_version():
    try:
        with open(os.path.join(NPM_PACKAGE, "package.json")) as f:
            return json.load(f)["version"]
    except OSError:
        return None


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tflite", nargs="?", help="a .tflite file (default: both selfie models)")
    parser.add_argument("out_dir", nargs="?", help="the package folder to write")
    parser.add_argument("--name", help="the ONNX graph's name (default: the file's name without .tflite)")
    args = parser.parse_args(argv)
    jobs = ([(args.tflite, args.out_dir, args.name or os.path.basename(args.tflite).removesuffix(".tflite"))] if args.tflite else
            [(os.path.join(NPM_PACKAGE, file), os.path.join(HERE, variant), file.removesuffix(".tflite"))
             for variant, file in MODELS.items()])
    if args.tflite and not args.out_dir:
        parser.error("give the output folder after the .tflite file")
    # All models are converted before any is written: a failure leaves every package as it was.
    converted = []
    for tflite_path, out_dir, name in jobs:
        try:
            onnx_model, data = convert_file(tflite_path, name)
        except (TFLiteFormatError, UnsupportedOpError) as e:
            print(f"convert.py: {tflite_path}: {e}; nothing written", file=sys.stderr)
            return 1
        except OSError as e:
            print(f"convert.py: cannot read {tflite_path}: {e.strerror}; nothing written", file=sys.stderr)
            return 1
        converted.append((onnx_model, data, os.path.basename(tflite_path), out_dir))
    for onnx_model, data, tflite_name, out_dir in converted:
        write_package(onnx_model, data, tflite_name, out_dir)
        print(f"{out_dir}: {os.path.getsize(os.path.join(out_dir, 'weights.onnx'))} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
