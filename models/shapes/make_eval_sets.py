"""Held-out evaluation scenes for the bundled model, written as PNG images and class-id masks.

    /usr/bin/python3 models/shapes/make_eval_sets.py

Into models/shapes/eval/ (git-ignored), one folder per set, each with images/ and masks/:
  heldout  500 scenes of the training distribution (256x256, JPEG re-encoding at random as in training)
  x2       200 scenes at 512x512 (twice the training size; the layout scales with the image)
  half     200 scenes at 128x128 (half the training size)
  jpeg     200 scenes at 256x256, re-encoded as JPEG at quality 20-35
The seeds differ from training (1000) and validation (2000).
"""

import os
import sys

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from scenes import make_scene  # noqa: E402

SETS = {
    "heldout": dict(seed=5000, count=500, size=256, jpeg=None),
    "x2": dict(seed=5001, count=200, size=512, jpeg=None),
    "half": dict(seed=5002, count=200, size=128, jpeg=None),
    "jpeg": dict(seed=5003, count=200, size=256, jpeg=False),
}


def main():
    for name, cfg in SETS.items():
        folder = os.path.join(HERE, "eval", name)
        os.makedirs(os.path.join(folder, "images"), exist_ok=True)
        os.makedirs(os.path.join(folder, "masks"), exist_ok=True)
        rng = np.random.default_rng(cfg["seed"])
        for i in range(cfg["count"]):
            scene = make_scene(cfg["seed"], i, cfg["size"], cfg["size"], jpeg=cfg["jpeg"])
            image = scene.image[:, :, ::-1]
            if name == "jpeg":
                ok, enc = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(20, 36))])
                image = cv2.imdecode(enc, cv2.IMREAD_COLOR)
            cv2.imwrite(os.path.join(folder, "images", f"{i:04d}.png"), image)
            cv2.imwrite(os.path.join(folder, "masks", f"{i:04d}.png"), scene.mask)
        print(f"{name}: {cfg['count']} scenes at {cfg['size']}x{cfg['size']}")


if __name__ == "__main__":
    main()
