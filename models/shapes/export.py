"""Exports a trained checkpoint as the platform exports a version, in both package layouts.

    /usr/bin/python3 models/shapes/export.py [--checkpoint models/shapes/runs/main/best.pt] [--arch shapesnet]

Writes models/shapes/package/ (legacy: weights.onnx, environment.json with PREPROCESSING as a JSON string
and sizes as strings, class_names.txt, model_type.json) and models/shapes/package-current/ (the same
weights with inference_config.json). ONNX opset 17, input [1, 3, 256, 256] float32, logits [1, 5, 64, 64]
(output stride 4; edgeseg upsamples them to the image).
"""

import argparse
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from net import ARCHS  # noqa: E402
from scenes import CLASSES, COLORS  # noqa: E402
from train import INPUT, MEAN, STD  # noqa: E402


def write(folder, name, text):
    with open(os.path.join(folder, name), "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkpoint", default=os.path.join(HERE, "runs", "main", "best.pt"))
    ap.add_argument("--arch", choices=sorted(ARCHS), default="shapesnet")
    args = ap.parse_args()
    model = ARCHS[args.arch](len(CLASSES))
    model.load_state_dict(torch.load(args.checkpoint, map_location="cpu"))
    model.eval()
    legacy = os.path.join(HERE, "package")
    current = os.path.join(HERE, "package-current")
    for folder in (legacy, current):
        os.makedirs(folder, exist_ok=True)
        torch.onnx.export(
            model, torch.zeros(1, 3, INPUT, INPUT), os.path.join(folder, "weights.onnx"), opset_version=17,
            input_names=["input"], output_names=["logits"], do_constant_folding=True,
        )
        write(folder, "class_names.txt", "\n".join(CLASSES) + "\n")
    preprocessing = {
        "auto-orient": {"enabled": True},
        "resize": {"enabled": True, "format": "Stretch to", "width": str(INPUT), "height": str(INPUT)},
    }
    environment = {
        "PREPROCESSING": json.dumps(preprocessing),
        "CLASS_MAP": {str(i): name for i, name in enumerate(CLASSES)},
        "COLORS": COLORS,
    }
    write(legacy, "environment.json", json.dumps(environment, indent=2) + "\n")
    write(legacy, "model_type.json", json.dumps({"type": "semantic-segmentation", "model_type": "edgeseg-shapes"}) + "\n")
    config = {
        "image_pre_processing": {"auto-orient": {"enabled": True}},
        "network_input": {
            "training_input_size": {"height": INPUT, "width": INPUT},
            "dynamic_spatial_size_supported": False,
            "color_mode": "rgb",
            "resize_mode": "stretch",
            "input_channels": 3,
            "scaling_factor": 255,
            "normalization": [[float(x) for x in MEAN], [float(x) for x in STD]],
        },
        "post_processing": {"type": "softmax", "fused": False},
    }
    write(current, "inference_config.json", json.dumps(config, indent=2) + "\n")
    size = os.path.getsize(os.path.join(legacy, "weights.onnx"))
    print(f"exported {args.checkpoint} → {legacy} and {current} ({size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
