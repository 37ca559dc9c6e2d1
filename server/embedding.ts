// Search embeddings, and the text-to-embedding map for prompts. No text-image model can be had here,
// so the space is built from what the platform knows about each image (see README "How search ranks"):
//   - class part: for each non-background class, the square root of its share of the labelled pixels;
//   - colour part: the square root of a 27-bin colour histogram (3 levels per channel) of the labelled
//     pixels (all pixels when none is labelled), weighted by 0.5;
//   - the whole vector L2-normalised, so that a dot product is the cosine similarity.
// A prompt maps into the same space: each class it names (or a synonym) sets that class's dimension to 1,
// each colour word sets its colour's bin to 0.5; then it is L2-normalised.

export const COLOR_LEVELS = 3;
export const COLOR_BINS = COLOR_LEVELS ** 3;
const COLOR_WEIGHT = 0.5;

export function colorBin(r: number, g: number, b: number): number {
  const level = (v: number) => Math.min(COLOR_LEVELS - 1, Math.floor((v * COLOR_LEVELS) / 256));
  return (level(r) * COLOR_LEVELS + level(g)) * COLOR_LEVELS + level(b);
}

/**
 * The embedding of an image (RGB pixels) with its class-id mask; `classes` in class-id order,
 * `background` the background class id.
 */
export function imageEmbedding(rgb: Uint8Array, mask: Uint8Array, classCount: number, background: number): number[] {
  const shares = new Float64Array(classCount);
  const colors = new Float64Array(COLOR_BINS);
  const allColors = new Float64Array(COLOR_BINS);
  let labelled = 0;
  for (let p = 0; p < mask.length; p++) {
    const c = mask[p]!;
    const bin = colorBin(rgb[p * 3]!, rgb[p * 3 + 1]!, rgb[p * 3 + 2]!);
    allColors[bin]!++;
    if (c === background || c >= classCount) continue;
    shares[c]!++;
    colors[bin]!++;
    labelled++;
  }
  const classPart: number[] = [];
  for (let c = 0; c < classCount; c++) if (c !== background) classPart.push(labelled ? Math.sqrt(shares[c]! / labelled) : 0);
  const hist = labelled ? colors : allColors;
  const total = hist.reduce((a, b) => a + b, 0) || 1;
  const colorPart = Array.from(hist, (v) => COLOR_WEIGHT * Math.sqrt(v / total));
  return normalize([...classPart, ...colorPart]);
}

const SYNONYMS: Record<string, string[]> = {
  circle: [
    'circle',
    'circles',
    'round',
    'ellipse',
    'ellipses',
    'oval',
    'ovals',
    'disc',
    'disk',
    'discs',
    'ring',
    'dot',
    'dots',
    'ball',
    'balls',
  ],
  rectangle: ['rectangle', 'rectangles', 'square', 'squares', 'box', 'boxes', 'rect', 'block', 'blocks', 'quad'],
  triangle: ['triangle', 'triangles', 'triangular', 'pyramid', 'wedge'],
  star: ['star', 'stars', 'starry', 'asterisk', 'sparkle'],
};

export const COLOR_WORDS: Record<string, [number, number, number]> = {
  red: [230, 30, 30],
  green: [40, 200, 50],
  blue: [40, 60, 230],
  yellow: [240, 230, 30],
  orange: [245, 140, 30],
  purple: [140, 40, 200],
  violet: [140, 40, 200],
  pink: [245, 120, 200],
  cyan: [40, 220, 230],
  teal: [30, 140, 140],
  white: [250, 250, 250],
  black: [10, 10, 10],
  gray: [128, 128, 128],
  grey: [128, 128, 128],
  brown: [130, 80, 40],
  magenta: [230, 40, 230],
};

/** The prompt's vector, and whether it named anything this space knows. */
export function promptEmbedding(prompt: string, classes: readonly string[], background: number): { vector: number[]; known: boolean } {
  const words = prompt.toLowerCase().match(/[a-z]+/g) ?? [];
  const classPart: number[] = [];
  let known = false;
  for (let c = 0; c < classes.length; c++) {
    if (c === background) continue;
    const name = classes[c]!.toLowerCase();
    const names = new Set([name, `${name}s`, ...(SYNONYMS[name] ?? [])]);
    const hit = words.some((w) => names.has(w));
    known ||= hit;
    classPart.push(hit ? 1 : 0);
  }
  const colorPart = new Array<number>(COLOR_BINS).fill(0);
  for (const w of words) {
    const rgb = COLOR_WORDS[w];
    if (!rgb) continue;
    colorPart[colorBin(...rgb)] = COLOR_WEIGHT;
    known = true;
  }
  return { vector: normalize([...classPart, ...colorPart]), known };
}

export function cosine(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) s += a[i]! * b[i]!;
  return s;
}

function normalize(v: number[]): number[] {
  const n = Math.sqrt(v.reduce((a, x) => a + x * x, 0));
  return n === 0 ? v : v.map((x) => x / n);
}
