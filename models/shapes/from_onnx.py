"""Turns a shipped weights.onnx back into a training checkpoint, so a run can start from the shipped model.

    /usr/bin/python3 models/shapes/from_onnx.py [--onnx models/shapes/package/weights.onnx] [--out models/shapes/runs/shipped.pt]

The export folds each BatchNorm into its convolution, so the ONNX file holds fused weights W' and biases
b'. For each Conv + BatchNorm pair the checkpoint gets conv.weight = W' and BatchNorm statistics measured
on generated scenes (mean mu and std sigma of W'x per channel), with gamma = sigma and beta = b' + mu: in
eval mode the network then computes exactly W'x + b', and in training mode batch statistics are close to
mu and sigma, so training resumes from the shipped function instead of from a jolt.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from net import ARCHS  # noqa: E402
from scenes import CLASSES  # noqa: E402
from train import EVAL_SEED, make_pool, to_tensor  # noqa: E402


def onnx_convs(path: str) -> list[tuple[np.ndarray, np.ndarray | None]]:
    graph = onnx.load(path).graph
    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    return [(weights[n.input[1]], weights[n.input[2]] if len(n.input) > 2 else None) for n in graph.node if n.op_type == "Conv"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnx", default=os.path.join(HERE, "package", "weights.onnx"))
    ap.add_argument("--arch", choices=sorted(ARCHS), default="shapesnet")
    ap.add_argument("--out", default=os.path.join(HERE, "runs", "shipped.pt"))
    args = ap.parse_args()

    model = ARCHS[args.arch](len(CLASSES)).eval()
    convs = [m for m in model.modules() if isinstance(m, nn.Conv2d)]
    fused = onnx_convs(args.onnx)
    if len(convs) != len(fused):
        sys.exit(f"{len(fused)} Conv nodes in the ONNX file, {len(convs)} convolutions in {args.arch}")
    # The BatchNorm that follows each bias-free convolution (Conv in net.py is Conv2d, BatchNorm2d, ReLU).
    bn_after = {}
    for seq in model.modules():
        children = list(seq.children())
        for a, b in zip(children, children[1:]):
            if isinstance(a, nn.Conv2d) and isinstance(b, nn.BatchNorm2d):
                bn_after[a] = b
    stats = {}
    with torch.no_grad():
        for conv, (w, b) in zip(convs, fused):
            if tuple(conv.weight.shape) != w.shape:
                sys.exit(f"shape mismatch: {tuple(conv.weight.shape)} vs {w.shape}")
            conv.weight.copy_(torch.from_numpy(w))
            bn = bn_after.get(conv)
            if bn is None:
                conv.bias.copy_(torch.from_numpy(b))
                continue
            # Identity BatchNorm that adds b' while the statistics are measured.
            bn.running_mean.zero_()
            bn.running_var.fill_(1 - bn.eps)
            bn.weight.fill_(1)
            bn.bias.copy_(torch.from_numpy(b))

            def hook(module, inputs, output, conv=conv):
                s = stats.setdefault(conv, [0, 0.0, 0.0])
                s[0] += output.shape[0] * output.shape[2] * output.shape[3]
                s[1] = s[1] + output.sum((0, 2, 3)).double()
                s[2] = s[2] + (output.double() ** 2).sum((0, 2, 3))

            conv.register_forward_hook(hook)
        images, _ = make_pool(EVAL_SEED + 1, 64, 2)
        for i in range(0, len(images), 16):
            model(to_tensor(images[i : i + 16]))
        for conv, (count, total, squares) in stats.items():
            bn = bn_after[conv]
            mu = total / count
            sigma = torch.sqrt(torch.clamp(squares / count - mu**2, min=1e-6))
            bias = bn.bias.clone()
            bn.running_mean.copy_(mu.float())
            bn.running_var.copy_((sigma**2).float() - bn.eps)
            bn.weight.copy_(sigma.float())
            bn.bias.copy_(bias + mu.float())
    for conv in convs:
        conv._forward_hooks.clear()
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    torch.save(model.state_dict(), args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
