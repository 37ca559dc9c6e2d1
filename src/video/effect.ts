// The background effects the compositors draw (on stills and on live video), and the numbers that shape them.

/** A colour as red, green and blue, each 0–255. */
export type Rgb = readonly [number, number, number];

/** What to do with the pixels of the background class; every other class counts as the subject. */
export type Effect =
  | {
      /** Paint each class in its colour over the picture (the viewer draws it, not a compositor). */
      kind: 'overlay';
    }
  | {
      /** Blur the background, as a shallow depth of field. */
      kind: 'blur';
      /**
       * The blur's σ as a multiple of the default (the image's longest side / 64, at least 4 pixels).
       * @default 1
       */
      strength?: number;
    }
  | {
      /** Replace the background with a colour. */
      kind: 'color';
      /** The colour. */
      color: Rgb;
    }
  | {
      /** Replace the background with a picture, cover-fitted. */
      kind: 'image';
      /** The picture. */
      image: ImageBitmap;
    }
  | {
      /** Make the background transparent. */
      kind: 'cutout';
    };

/** The name of an {@link Effect}: `overlay`, `blur`, `color`, `image` or `cutout`. */
export type EffectKind = Effect['kind'];

/**
 * `#rrggbb` → [r, g, b] in 0–255.
 * @throws Error for any other text.
 */
export function parseHexColor(hex: string): Rgb {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!m) throw new Error(`not a #rrggbb colour: ${hex}`);
  return [parseInt(m[1]!, 16), parseInt(m[2]!, 16), parseInt(m[3]!, 16)];
}

/**
 * The feather's width in image pixels: the edge of the subject fades over about ±2 σ. Scaled with the
 * image, so that a 4K photo gets the same look as a 640×480 frame; the model's own resolution (256 px
 * across for the people model) makes anything finer than ~1/300 of the image noise anyway.
 */
export function featherSigma(width: number, height: number): number {
  return Math.max(1.5, Math.max(width, height) / 320);
}

/** How strongly the background is blurred (σ in image pixels): a shallow depth of field. */
export function backgroundBlurSigma(width: number, height: number, strength = 1): number {
  return strength * Math.max(4, Math.max(width, height) / 64);
}

/** The part of an iw×ih image that covers an ow×oh output (CSS `object-fit: cover`): centred, overflow cropped. */
export function coverRect(iw: number, ih: number, ow: number, oh: number): { x: number; y: number; width: number; height: number } {
  const scale = Math.max(ow / iw, oh / ih);
  const [width, height] = [ow / scale, oh / scale];
  return { x: (iw - width) / 2, y: (ih - height) / 2, width, height };
}

/**
 * The feathered alpha's curve: a smoothstep from 0.2 to 0.9 chokes the edge a little, since the model's
 * edge tends to sit just outside the subject and the old background showing through the outer half of
 * the ramp reads as a halo. Both compositors apply it (the GPU in its shader, the CPU through a table).
 */
export const CHOKE = { from: 0.2, to: 0.9 } as const;

/**
 * Both compositors feather the mask at 1/maskFactor of the image's size, and the video path refines it
 * at that size: a power of two, at least 2, and as large as keeps the mask's longest side at 320 cells or
 * more (2 up to 1279 px, 4 from 1280 to 2559, …). The feather's σ (longest side / 320) is then 1–2 cells
 * at every size, and a 720p frame costs about what a 640 × 480 one does instead of three times as much.
 */
export function maskFactor(width: number, height: number): number {
  let factor = 2;
  while (Math.max(width, height) / (factor * 2) >= 320) factor *= 2;
  return factor;
}

/** The background is blurred at half the mask's resolution (1/blurFactor of the image's size). */
export const blurFactor = (width: number, height: number): number => 2 * maskFactor(width, height);
