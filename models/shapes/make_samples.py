"""The local platform's default project: scenes from the generator, with masks, splits, tags and batches.

    /usr/bin/python3 models/shapes/make_samples.py

Writes models/shapes/samples/: images/<id>.jpg, masks/<id>.png (8-bit class ids) and manifest.json:
{ "classes": [...], "colors": {name: "#rrggbb"},
  "images": [{ "id", "name", "file", "mask", "width", "height", "split", "tags", "batch", "created" }] }
Seeded: rerunning writes the same files.
"""

import hashlib
import json
import os
import sys

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from scenes import CLASSES, COLORS, make_scene  # noqa: E402

SEED = 3000
COUNT = 72
SIZES = [(256, 256), (320, 240), (480, 360), (640, 480), (240, 320), (400, 300)]
BATCHES = ["uploaded-2026-09", "uploaded-2026-10", "field-test"]
CREATED0 = 1_790_000_000_000  # unix ms, Sep 2026


def main():
    out = os.path.join(HERE, "samples")
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    os.makedirs(os.path.join(out, "masks"), exist_ok=True)
    rng = np.random.default_rng(SEED)
    images = []
    for i in range(COUNT):
        w, h = SIZES[i % len(SIZES)]
        scene = make_scene(SEED, i, w, h, jpeg=False)
        image_id = hashlib.sha1(f"edgeseg-sample-{i}".encode()).hexdigest()[:20]
        cv2.imwrite(os.path.join(out, "images", f"{image_id}.jpg"), scene.image[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, 90])
        cv2.imwrite(os.path.join(out, "masks", f"{image_id}.png"), scene.mask)
        present = sorted(set(scene.mask.flatten().tolist()) - {0})
        tags = [CLASSES[c] for c in present]
        if len(scene.shapes) >= 6:
            tags.append("crowded")
        if scene.low_contrast:
            tags.append("low-contrast")
        split = "train" if i % 10 < 7 else "valid" if i % 10 < 9 else "test"
        images.append({
            "id": image_id,
            "name": f"shapes-{i:03d}.jpg",
            "file": f"images/{image_id}.jpg",
            "mask": f"masks/{image_id}.png",
            "width": w,
            "height": h,
            "split": split,
            "tags": tags,
            "batch": BATCHES[int(rng.integers(0, len(BATCHES)))],
            "created": CREATED0 + i * 3_600_000,
        })
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"classes": CLASSES, "colors": COLORS, "images": images}, f, indent=1)
        f.write("\n")
    print(f"wrote {len(images)} samples to {out}")


if __name__ == "__main__":
    main()
