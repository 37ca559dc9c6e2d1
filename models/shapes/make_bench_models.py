"""Builds benchmark-size models into bench/models/ (git-ignored), for the speed work.

    /usr/bin/python3 models/shapes/make_bench_models.py

For each model, two copies of the same ONNX weights (seeded random initialisation; speed does not depend
on training):
  bench/models/<name>/          the platform's legacy export layout (edgeseg, the local platform)
  bench/models/hf/<name>/       the layout transformers.js loads: config.json (id2label),
                                preprocessor_config.json (same size and normalisation), onnx/model.onnx
                                with input `pixel_values` and output `logits`
Models: lraspp-mbv3-large-512 (21 classes, logits at the input size), and
the bundled shapes model (5 classes, 256x256) in the transformers.js layout.
"""

import json
import os
import shutil
import sys

import torch
from torch import nn
from torchvision.models import segmentation

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
OUT = os.path.join(ROOT, "bench", "models")
IMAGENET_MEAN = [0.485, 0.456, 0.406]
IMAGENET_STD = [0.229, 0.224, 0.225]


class LogitsOnly(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        out = self.model(x)
        return out["out"] if isinstance(out, dict) else out


def export(model, path, size, names=("input", "logits")):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    torch.onnx.export(model.eval(), torch.zeros(1, 3, size, size), path, opset_version=17,
                      input_names=[names[0]], output_names=[names[1]], do_constant_folding=True)


def legacy_package(folder, classes, size):
    os.makedirs(folder, exist_ok=True)
    pre = {"auto-orient": {"enabled": True}, "resize": {"enabled": True, "format": "Stretch to", "width": str(size), "height": str(size)}}
    with open(os.path.join(folder, "environment.json"), "w") as f:
        json.dump({"PREPROCESSING": json.dumps(pre), "CLASS_MAP": {str(i): c for i, c in enumerate(classes)}}, f, indent=1)
    with open(os.path.join(folder, "class_names.txt"), "w") as f:
        f.write("\n".join(classes) + "\n")
    with open(os.path.join(folder, "model_type.json"), "w") as f:
        json.dump({"type": "semantic-segmentation", "model_type": os.path.basename(folder)}, f)


def hf_package(folder, model, classes, size):
    os.makedirs(folder, exist_ok=True)
    if model is not None:
        export(model, os.path.join(folder, "onnx", "model.onnx"), size, ("pixel_values", "logits"))
    config = {
        "model_type": "segformer",
        "architectures": ["SegformerForSemanticSegmentation"],
        "id2label": {str(i): c for i, c in enumerate(classes)},
        "label2id": {c: i for i, c in enumerate(classes)},
        "num_labels": len(classes),
    }
    pre = {
        "image_processor_type": "SegformerImageProcessor",
        "do_resize": True, "size": {"height": size, "width": size}, "resample": 2,
        "do_rescale": True, "rescale_factor": 1 / 255,
        "do_normalize": True, "image_mean": IMAGENET_MEAN, "image_std": IMAGENET_STD,
        "do_reduce_labels": False,
    }
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    with open(os.path.join(folder, "preprocessor_config.json"), "w") as f:
        json.dump(pre, f, indent=1)


def images():
    """Benchmark JPEGs: generated scenes at 640x480, 1024x768 and 4032x3024 (quality 92)."""
    import cv2
    sys.path.insert(0, HERE)
    from scenes import make_scene

    folder = os.path.join(OUT, "images")
    os.makedirs(folder, exist_ok=True)
    for i, (w, h) in enumerate([(640, 480), (1024, 768), (4032, 3024)]):
        scene = make_scene(4000, i, w, h, jpeg=False)
        cv2.imwrite(os.path.join(folder, f"scene-{w}x{h}.jpg"), scene.image[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, 92])
    print("images: 640x480, 1024x768, 4032x3024")


def main():
    images()
    torch.manual_seed(0)
    classes21 = ["background"] + [f"class-{i}" for i in range(1, 21)]
    builders = {
        "lraspp-mbv3-large-512": lambda: segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=21),
    }
    for name, build in builders.items():
        torch.manual_seed(0)
        model = LogitsOnly(build())
        folder = os.path.join(OUT, name)
        export(model, os.path.join(folder, "weights.onnx"), 512)
        legacy_package(folder, classes21, 512)
        hf_package(os.path.join(OUT, "hf", name), model, classes21, 512)
        print(f"{name}: {os.path.getsize(os.path.join(folder, 'weights.onnx')) / 1e6:.1f} MB")
    # The bundled model in the transformers.js layout: the committed package's ONNX file, its input and
    # output renamed to the names transformers.js feeds and reads.
    import onnx
    from scenes import CLASSES
    folder = os.path.join(OUT, "hf", "shapes")
    hf_package(folder, None, CLASSES, 256)
    graph = onnx.load(os.path.join(HERE, "package", "weights.onnx"))
    renames = {graph.graph.input[0].name: "pixel_values", graph.graph.output[0].name: "logits"}
    for node in graph.graph.node:
        node.input[:] = [renames.get(n, n) for n in node.input]
        node.output[:] = [renames.get(n, n) for n in node.output]
    graph.graph.input[0].name = "pixel_values"
    graph.graph.output[0].name = "logits"
    os.makedirs(os.path.join(folder, "onnx"), exist_ok=True)
    onnx.save(graph, os.path.join(folder, "onnx", "model.onnx"))
    shutil.copytree(os.path.join(HERE, "package"), os.path.join(OUT, "shapes"), dirs_exist_ok=True)
    print("shapes: copied the bundled package and wrote its transformers.js layout")


if __name__ == "__main__":
    main()
