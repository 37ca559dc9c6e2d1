"""Trains the bundled shapes model from a fixed seed.

    /usr/bin/python3 models/shapes/train.py [--out models/shapes/runs/main] [--scale 1.0]

Runs on CPU (torch 1.13 on Debian) or a CUDA GPU (torch 2.x) alike. The network sees exactly what
edgeseg feeds it: RGB, "Stretch to" 256x256 with OpenCV's INTER_LINEAR, /255, ImageNet mean/std.
Schedule: a pool of generated scenes (square and stretched from other aspect ratios), phase 1 on
128x128 (downscaled scenes and native-scale crops, fast), phase 2 on full 256x256 scenes; AdamW with a
warm-up and cosine decay over both phases; loss = cross-entropy + soft Dice (the small classes count).
`--arch` picks the network (net.py; the shipped one is `shapesnet`). `--scale` multiplies the step
counts (0.1 for a smoke test). `--init` starts from a checkpoint (a second,
shorter schedule); `--stop-after` ends a run early with its schedule unchanged. models/README.md has the
commands of the shipped run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from multiprocessing import Pool

import cv2
import numpy as np
import torch
from torch.nn import functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from net import ARCHS  # noqa: E402
from scenes import CLASSES, make_scene, scene_size  # noqa: E402

INPUT = 256
MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)
TRAIN_SEED = 1000
EVAL_SEED = 2000
ASPECT_SIZES = [(256, 256), (320, 240), (240, 320), (384, 216), (216, 384), (300, 300), (200, 200)]


def stretched_scene(seed: int, index: int) -> tuple[np.ndarray, np.ndarray]:
    """A scene at a random aspect ratio, stretched to INPUT x INPUT as edgeseg's "Stretch to" does."""
    w, h = scene_size(seed, index, ASPECT_SIZES)
    s = make_scene(seed, index, w, h)
    if (w, h) == (INPUT, INPUT):
        return s.image, s.mask
    img = cv2.resize(s.image, (INPUT, INPUT), interpolation=cv2.INTER_LINEAR)
    mask = cv2.resize(s.mask, (INPUT, INPUT), interpolation=cv2.INTER_NEAREST)
    return img, mask


def _make(args):
    return stretched_scene(*args)


def make_pool(seed: int, count: int, workers: int, start: int = 0) -> tuple[np.ndarray, np.ndarray]:
    with Pool(workers) as pool:
        items = pool.map(_make, [(seed, i) for i in range(start, start + count)], chunksize=64)
    return np.stack([i for i, _ in items]), np.stack([m for _, m in items])


def to_tensor(images: np.ndarray) -> torch.Tensor:
    x = (images.astype(np.float32) / 255.0 - MEAN) / STD
    return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))


def augment(rng: np.random.Generator, img: np.ndarray, mask: np.ndarray):
    k = int(rng.integers(0, 4))
    img, mask = np.rot90(img, k), np.rot90(mask, k)
    if rng.random() < 0.5:
        img, mask = img[:, ::-1], mask[:, ::-1]
    return img, mask


def batch_128(rng, images, masks, size):
    idx = rng.integers(0, len(images), size)
    xs, ys = [], []
    for i in idx:
        img, mask = images[i], masks[i]
        if rng.random() < 0.5:
            img = cv2.resize(img, (128, 128), interpolation=cv2.INTER_AREA)
            mask = cv2.resize(mask, (128, 128), interpolation=cv2.INTER_NEAREST)
        else:
            y0, x0 = rng.integers(0, INPUT - 128 + 1, 2)
            img, mask = img[y0 : y0 + 128, x0 : x0 + 128], mask[y0 : y0 + 128, x0 : x0 + 128]
        img, mask = augment(rng, img, mask)
        xs.append(img)
        ys.append(mask)
    return np.stack(xs), np.stack(ys)


def batch_256(rng, images, masks, size):
    idx = rng.integers(0, len(images), size)
    pairs = [augment(rng, images[i], masks[i]) for i in idx]
    return np.stack([p[0] for p in pairs]), np.stack([p[1] for p in pairs])


def loss_fn(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    logits = F.interpolate(logits, size=target.shape[-2:], mode="bilinear", align_corners=False)
    ce = F.cross_entropy(logits, target)
    prob = logits.softmax(1)
    onehot = F.one_hot(target, prob.shape[1]).permute(0, 3, 1, 2).float()
    inter = (prob * onehot).sum((0, 2, 3))
    denom = prob.sum((0, 2, 3)) + onehot.sum((0, 2, 3))
    dice = 1 - ((2 * inter + 1) / (denom + 1)).mean()
    return ce + dice


@torch.no_grad()
def evaluate(model, images, masks, device) -> dict:
    model.eval()
    confusion = np.zeros((len(CLASSES), len(CLASSES)), np.int64)
    for i in range(0, len(images), 32):
        x = to_tensor(images[i : i + 32]).to(device)
        logits = F.interpolate(model(x), size=(INPUT, INPUT), mode="bilinear", align_corners=False)
        pred = logits.argmax(1).cpu().numpy().reshape(-1)
        gt = masks[i : i + 32].reshape(-1)
        confusion += np.bincount(gt * len(CLASSES) + pred, minlength=len(CLASSES) ** 2).reshape(len(CLASSES), -1)
    model.train()
    tp = np.diag(confusion)
    iou = tp / np.maximum(confusion.sum(0) + confusion.sum(1) - tp, 1)
    return {"miou": float(iou.mean()), "iou": [round(float(v), 4) for v in iou]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "runs", "main"))
    ap.add_argument("--arch", choices=sorted(ARCHS), default="shapesnet")
    ap.add_argument("--pool", type=int, default=16000)
    ap.add_argument("--pool-start", type=int, default=0, help="index of the first training scene (a fine-tune can draw scenes a previous run never saw)")
    ap.add_argument("--steps128", type=int, default=10000)
    ap.add_argument("--steps256", type=int, default=4000)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--lr", type=float, default=4e-3)
    ap.add_argument("--eval-every", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--init", help="state dict to start from (fine-tuning a previous run's best.pt)")
    ap.add_argument("--stop-after", type=int, help="stop after this many steps, the schedule unchanged")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    rng = np.random.default_rng(0)
    log = open(os.path.join(args.out, "log.jsonl"), "a")

    def emit(**record):
        record["t"] = round(time.time() - start, 1)
        print(json.dumps(record), flush=True)
        log.write(json.dumps(record) + "\n")
        log.flush()

    start = time.time()
    pool_size = max(256, int(args.pool * min(1.0, args.scale * 4)))
    images, masks = make_pool(TRAIN_SEED, pool_size, args.threads, args.pool_start)
    eval_images, eval_masks = make_pool(EVAL_SEED, 300, args.threads)
    emit(event="pool", train=len(images), eval=len(eval_images))

    model = ARCHS[args.arch](len(CLASSES)).to(device)
    emit(event="start", **{k: v for k, v in vars(args).items() if k != "out"})
    if args.init:
        model.load_state_dict(torch.load(args.init, map_location=device))
        emit(event="init", path=os.path.relpath(args.init, os.path.dirname(args.out)), **evaluate(model, eval_images, eval_masks, device))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps128 = int(args.steps128 * args.scale)
    steps256 = int(args.steps256 * args.scale)
    total = steps128 + steps256
    warmup = max(1, total // 40)

    def lr_at(step):
        if step < warmup:
            return args.lr * (step + 1) / warmup
        return args.lr * 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup))) + 1e-5

    best = -1.0
    for step in range(min(total, args.stop_after or total)):
        for group in opt.param_groups:
            group["lr"] = lr_at(step)
        if step < steps128:
            xb, yb = batch_128(rng, images, masks, 32)
        else:
            xb, yb = batch_256(rng, images, masks, 16)
        x = to_tensor(xb).to(device)
        y = torch.from_numpy(np.ascontiguousarray(yb)).long().to(device)
        loss = loss_fn(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 100 == 0:
            emit(step=step, loss=round(float(loss), 4), lr=round(lr_at(step), 6))
        if (step + 1) % args.eval_every == 0 or step + 1 == total:
            metrics = evaluate(model, eval_images, eval_masks, device)
            emit(step=step + 1, **metrics)
            torch.save(model.state_dict(), os.path.join(args.out, "last.pt"))
            if metrics["miou"] > best:
                best = metrics["miou"]
                torch.save(model.state_dict(), os.path.join(args.out, "best.pt"))
    emit(event="done", best_miou=best, seconds=round(time.time() - start))


if __name__ == "__main__":
    main()
