// The effect controls: which effect, the replacement colour, the replacement image (a file, or a default backdrop).
import { onAsync } from '../status.js';
import { parseHexColor, type Effect, type EffectKind } from 'edgeseg';

const $ = <T extends HTMLElement>(selector: string) => document.querySelector<T>(selector)!;

export class EffectControls {
  readonly #kind = $<HTMLSelectElement>('#effect-select');
  readonly #color = $<HTMLInputElement>('#effect-color');
  readonly #file = $<HTMLInputElement>('#effect-image');
  #image: ImageBitmap | null = null;

  /** `onChange` runs when the effect or one of its settings changes. */
  constructor(onChange: () => void) {
    const update = () => {
      this.#showSettings();
      onChange();
    };
    this.#kind.addEventListener('change', update);
    this.#color.addEventListener('input', update);
    // A file that is no image this browser reads is said so on the status line; the effect stays as it was.
    this.#file.addEventListener(
      'change',
      onAsync(async () => {
        const file = this.#file.files?.[0];
        if (!file) return;
        this.#image = await createImageBitmap(file);
        update();
      }),
    );
    this.#showSettings();
  }

  get effect(): Effect {
    const kind = this.#kind.value as EffectKind;
    switch (kind) {
      case 'color':
        return { kind, color: parseHexColor(this.#color.value) };
      case 'image':
        return { kind, image: (this.#image ??= backdrop()) };
      case 'blur':
      case 'cutout':
      case 'overlay':
        return { kind };
    }
  }

  #showSettings(): void {
    $('#effect-color-label').hidden = this.#kind.value !== 'color';
    $('#effect-image-label').hidden = this.#kind.value !== 'image';
  }
}

/** Until the user picks an image: a soft studio backdrop, drawn here so that the page ships no picture. */
function backdrop(): ImageBitmap {
  const canvas = new OffscreenCanvas(1280, 960);
  const ctx = canvas.getContext('2d')!;
  const glow = ctx.createRadialGradient(640, 380, 40, 640, 480, 900);
  glow.addColorStop(0, '#5b7fa8');
  glow.addColorStop(0.55, '#2c3e5c');
  glow.addColorStop(1, '#121826');
  ctx.fillStyle = glow;
  ctx.fillRect(0, 0, 1280, 960);
  return canvas.transferToImageBitmap();
}
