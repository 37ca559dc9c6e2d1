// Deterministic class-id masks with regions and edges, for payload tests.
export function regionMask(width: number, height: number, classes = 5, seed = 1): Uint8Array {
  const ids = new Uint8Array(width * height);
  let s = seed;
  const rand = () => (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const discs = Array.from({ length: 6 }, () => ({
    x: rand() * width,
    y: rand() * height,
    r: rand() * Math.min(width, height) * 0.4 + 1,
    c: 1 + Math.floor(rand() * (classes - 1)),
  }));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (const d of discs) if ((x - d.x) ** 2 + (y - d.y) ** 2 < d.r ** 2) ids[y * width + x] = d.c;
    }
  }
  return ids;
}
