"""Procedural scenes of overlapping shapes on cluttered backgrounds, with exact per-pixel ground truth.

Every scene is a pure function of (seed, index, size): the same arguments give the same pixels, on any
machine with the same numpy and OpenCV. Classes, in class_names.txt order:
background, circle (ellipses too), rectangle (squares too), triangle, star.
The ground truth at a pixel is the class of the topmost shape covering it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

CLASSES = ["background", "circle", "rectangle", "triangle", "star"]
COLORS = {
    "background": "#000000",
    "circle": "#e6194b",
    "rectangle": "#3cb44b",
    "triangle": "#4363d8",
    "star": "#ffe119",
}
# Fixed-point sub-pixel precision for cv2 polygon drawing (coordinates are multiplied by 2**SHIFT).
SHIFT = 4


@dataclass
class Scene:
    image: np.ndarray  # H x W x 3, uint8, RGB
    mask: np.ndarray  # H x W, uint8 class ids
    shapes: list  # class name of each shape, bottom to top
    low_contrast: bool


def _rng(seed: int, index: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, index]))


def _background(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A gradient, smooth noise, texture and clutter that is not any of the shape classes."""
    c0 = rng.uniform(0, 255, 3)
    c1 = rng.uniform(0, 255, 3)
    angle = rng.uniform(0, 2 * math.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    t = (np.cos(angle) * xx / w + np.sin(angle) * yy / h + 1) / 2
    img = (c0[None, None, :] * (1 - t[..., None]) + c1[None, None, :] * t[..., None]).astype(np.float32)

    # Low-frequency noise: upsampled random field.
    small = rng.normal(0, rng.uniform(5, 30), (max(2, h // 32), max(2, w // 32), 3)).astype(np.float32)
    img += cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)

    # Texture: a periodic pattern (stripes or checks) at a random frequency, faint.
    if rng.random() < 0.5:
        period = rng.uniform(4, 24)
        phase = rng.uniform(0, 2 * math.pi)
        a2 = rng.uniform(0, math.pi)
        stripes = np.sin((np.cos(a2) * xx + np.sin(a2) * yy) * 2 * math.pi / period + phase)
        if rng.random() < 0.4:
            stripes = stripes * np.sin((-np.sin(a2) * xx + np.cos(a2) * yy) * 2 * math.pi / period)
        img += (stripes[..., None] * rng.uniform(3, 25)).astype(np.float32)

    # Clutter: lines, thin curves and small specks in random colours.
    for _ in range(int(rng.integers(0, 14))):
        color = tuple(float(c) for c in rng.uniform(0, 255, 3))
        kind = rng.random()
        if kind < 0.5:
            p0 = (int(rng.integers(0, w)), int(rng.integers(0, h)))
            p1 = (int(rng.integers(0, w)), int(rng.integers(0, h)))
            cv2.line(img, p0, p1, color, int(rng.integers(1, 3)), cv2.LINE_AA)
        elif kind < 0.8:
            pts = np.cumsum(rng.normal(0, 8, (12, 2)), axis=0) + rng.uniform(0, [w, h])
            cv2.polylines(img, [pts.astype(np.int32)], False, color, 1, cv2.LINE_AA)
        else:
            for _ in range(int(rng.integers(5, 40))):
                c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
                cv2.circle(img, c, int(rng.integers(1, 3)), color, -1, cv2.LINE_AA)
    img += rng.normal(0, rng.uniform(0, 10), img.shape).astype(np.float32)
    return img


def _polygon(rng: np.random.Generator, kind: str, cx: float, cy: float, r: float) -> np.ndarray:
    rot = rng.uniform(0, 2 * math.pi)
    if kind == "rectangle":
        aspect = 1.0 if rng.random() < 0.3 else rng.uniform(0.35, 1.0)
        hw, hh = r, r * aspect
        pts = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
    elif kind == "triangle":
        # Random triangle with every angle >= 25 degrees, so it never degenerates into a sliver.
        while True:
            angles = np.sort(rng.uniform(0, 2 * math.pi, 3))
            gaps = np.diff(np.concatenate([angles, angles[:1] + 2 * math.pi]))
            if gaps.min() > math.radians(50):
                break
        pts = np.stack([np.cos(angles), np.sin(angles)], axis=1) * r
    elif kind == "star":
        n = int(rng.integers(5, 8))
        inner = rng.uniform(0.38, 0.55)
        a = np.arange(2 * n) * math.pi / n
        radius = np.where(np.arange(2 * n) % 2 == 0, r, r * inner)
        pts = np.stack([np.cos(a) * radius, np.sin(a) * radius], axis=1)
    else:
        raise ValueError(kind)
    c, s = math.cos(rot), math.sin(rot)
    pts = pts @ np.array([[c, s], [-s, c]])
    return pts + np.array([cx, cy])


def _draw_shape(img, mask, rng, kind: str, class_id: int, h: int, w: int, color) -> None:
    size = min(h, w)
    r = rng.uniform(0.06, 0.28) * size
    cx = rng.uniform(-0.1, 1.1) * w
    cy = rng.uniform(-0.1, 1.1) * h
    if kind == "circle":
        aspect = 1.0 if rng.random() < 0.4 else rng.uniform(0.45, 1.0)
        axes = (r, r * aspect)
        angle = rng.uniform(0, 180)
        center = (int(round(cx * (1 << SHIFT))), int(round(cy * (1 << SHIFT))))
        axes_i = (int(round(axes[0] * (1 << SHIFT))), int(round(axes[1] * (1 << SHIFT))))
        cv2.ellipse(img, center, axes_i, angle, 0, 360, color, -1, cv2.LINE_AA, SHIFT)
        cv2.ellipse(mask, center, axes_i, angle, 0, 360, class_id, -1, cv2.LINE_8, SHIFT)
    else:
        pts = (_polygon(rng, kind, cx, cy, r) * (1 << SHIFT)).round().astype(np.int32)
        cv2.fillPoly(img, [pts], color, cv2.LINE_AA, SHIFT)
        cv2.fillPoly(mask, [pts], class_id, cv2.LINE_8, SHIFT)


def make_scene(seed: int, index: int, width: int = 256, height: int = 256, jpeg: bool | None = None) -> Scene:
    """One scene. `jpeg=None` picks JPEG re-encoding at random (as the training distribution does)."""
    rng = _rng(seed, index)
    h, w = height, width
    img = _background(rng, h, w)
    mask = np.zeros((h, w), np.uint8)
    low_contrast = rng.random() < 0.15
    bg_mean = img.reshape(-1, 3).mean(axis=0)
    n = int(rng.integers(1, 9))
    kinds = [CLASSES[int(k)] for k in rng.integers(1, 5, n)]
    for kind in kinds:
        if low_contrast:
            color = np.clip(bg_mean + rng.normal(0, 28, 3), 0, 255)
        else:
            color = rng.uniform(0, 255, 3)
        if rng.random() < 0.25:
            # A gradient fill: draw the shape's anti-aliased coverage, then blend a gradient through it.
            cover = np.zeros((h, w, 3), np.float32)
            _draw_shape(cover, mask, rng, kind, CLASSES.index(kind), h, w, (1.0, 1.0, 1.0))
            yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
            c2 = rng.uniform(0, 255, 3)
            t = ((xx * rng.uniform(-1, 1) + yy * rng.uniform(-1, 1)) / max(h, w) + 1) / 2
            fill = color[None, None, :] * (1 - t[..., None]) + c2[None, None, :] * t[..., None]
            img = img * (1 - cover) + fill.astype(np.float32) * cover
        else:
            _draw_shape(img, mask, rng, kind, CLASSES.index(kind), h, w, tuple(float(c) for c in color))
    # Lighting: brightness, contrast, gamma, and a soft spotlight.
    img = img * rng.uniform(0.6, 1.3) + rng.uniform(-40, 40)
    if rng.random() < 0.4:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        sx, sy = rng.uniform(0, w), rng.uniform(0, h)
        spot = np.exp(-((xx - sx) ** 2 + (yy - sy) ** 2) / (2 * (rng.uniform(0.3, 0.8) * max(h, w)) ** 2))
        img = img * (0.7 + 0.5 * spot[..., None])
    img = np.clip(img, 0, 255)
    gamma = rng.uniform(0.7, 1.4)
    img = 255.0 * (img / 255.0) ** gamma
    if rng.random() < 0.35:
        k = int(rng.choice([3, 5, 7]))
        img = cv2.GaussianBlur(img, (k, k), 0)
    img = np.clip(img + rng.normal(0, rng.uniform(0, 6), img.shape), 0, 255).astype(np.uint8)
    use_jpeg = (rng.random() < 0.5) if jpeg is None else jpeg
    if use_jpeg:
        quality = int(rng.integers(30, 96))
        ok, enc = cv2.imencode(".jpg", img[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, quality])
        img = cv2.imdecode(enc, cv2.IMREAD_COLOR)[:, :, ::-1].copy()
    return Scene(image=img, mask=mask, shapes=kinds, low_contrast=low_contrast)


def scene_size(seed: int, index: int, sizes: list[tuple[int, int]]) -> tuple[int, int]:
    """A size drawn from `sizes` for scene `index`, independent of the scene's own random stream."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, index, 7]))
    return sizes[int(rng.integers(0, len(sizes)))]
