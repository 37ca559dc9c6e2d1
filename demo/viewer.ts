// The result view: the image, the mask in class colours over it, a legend of class shares, hover names.

export interface ShownResult {
  classIds: Uint8Array;
  width: number;
  height: number;
  classNames: string[];
  colors: string[];
  background: number;
}

const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];

export class Viewer {
  readonly imageCanvas = document.querySelector<HTMLCanvasElement>('#image-canvas')!;
  readonly maskCanvas = document.querySelector<HTMLCanvasElement>('#mask-canvas')!;
  #tip = document.querySelector<HTMLElement>('#hover-tip')!;
  #legend = document.querySelector<HTMLTableElement>('#legend')!;
  #empty = document.querySelector<HTMLElement>('#stage-empty')!;
  #result: ShownResult | null = null;

  constructor() {
    this.maskCanvas.addEventListener('pointermove', (e) => this.#hover(e));
    this.maskCanvas.addEventListener('pointerleave', () => (this.#tip.hidden = true));
  }

  set opacity(value: number) {
    this.maskCanvas.style.opacity = String(value);
  }

  get result(): ShownResult | null {
    return this.#result;
  }

  /** Holds a result that is shown some other way (an effect), for the hover names and the downloads. */
  keep(result: ShownResult): void {
    this.#result = result;
  }

  drawImage(source: CanvasImageSource, width: number, height: number): void {
    this.#empty.hidden = true;
    for (const c of [this.imageCanvas, this.maskCanvas]) {
      if (c.width !== width || c.height !== height) [c.width, c.height] = [width, height];
    }
    this.imageCanvas.getContext('2d')!.drawImage(source, 0, 0, width, height);
  }

  /** Opaque class colours where the class is not background; the canvas's CSS opacity does the blending. */
  drawMask(result: ShownResult): void {
    this.#result = result;
    const { width, height, classIds, colors, background } = result;
    if (this.maskCanvas.width !== width || this.maskCanvas.height !== height)
      [this.maskCanvas.width, this.maskCanvas.height] = [width, height];
    const palette = colors.map(rgb);
    const data = new ImageData(width, height);
    const px = new Uint32Array(data.data.buffer);
    const packed = palette.map(([r, g, b]) => (255 << 24) | (b << 16) | (g << 8) | r);
    for (let i = 0; i < classIds.length; i++) {
      const c = classIds[i]!;
      px[i] = c === background ? 0 : (packed[c] ?? 0xffff00ff);
    }
    this.maskCanvas.getContext('2d')!.putImageData(data, 0, 0);
    this.#drawLegend(result);
  }

  #drawLegend({ classIds, classNames, colors }: ShownResult): void {
    const counts = new Float64Array(classNames.length);
    for (let i = 0; i < classIds.length; i++) counts[classIds[i]!]!++;
    this.#legend.replaceChildren(
      ...classNames.map((name, id) => {
        const share = (100 * counts[id]!) / classIds.length;
        const row = document.createElement('tr');
        row.innerHTML = `<td><span class="swatch" style="background:${colors[id]}"></span>${escapeHtml(name)}</td><td><div class="bar"><div style="width:${share}%;background:${colors[id]}"></div></div></td><td class="share">${share.toFixed(1)}%</td>`;
        return row;
      }),
    );
  }

  #hover(event: PointerEvent): void {
    const r = this.#result;
    if (!r) return;
    // The canvas is scaled to fit (object-fit: contain): find the image inside the element's box.
    const rect = this.maskCanvas.getBoundingClientRect();
    const scale = Math.min(rect.width / r.width, rect.height / r.height);
    const left = rect.left + (rect.width - r.width * scale) / 2;
    const top = rect.top + (rect.height - r.height * scale) / 2;
    const x = Math.floor((event.clientX - left) / scale);
    const y = Math.floor((event.clientY - top) / scale);
    if (x < 0 || y < 0 || x >= r.width || y >= r.height) {
      this.#tip.hidden = true;
      return;
    }
    const id = r.classIds[y * r.width + x]!;
    const stage = this.maskCanvas.parentElement!.getBoundingClientRect();
    this.#tip.hidden = false;
    this.#tip.textContent = `${r.classNames[id] ?? id} (${x}, ${y})`;
    this.#tip.style.left = `${event.clientX - stage.left}px`;
    this.#tip.style.top = `${event.clientY - stage.top}px`;
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Draws class ids in class colours into a canvas (for the side-by-side comparison). */
export function paintClassIds(canvas: HTMLCanvasElement, classIds: Uint8Array, width: number, height: number, colors: string[]): void {
  [canvas.width, canvas.height] = [width, height];
  const data = new ImageData(width, height);
  const palette = colors.map(rgb);
  for (let i = 0; i < classIds.length; i++) {
    const [r, g, b] = palette[classIds[i]!] ?? [255, 0, 255];
    data.data.set([r, g, b, 255], i * 4);
  }
  canvas.getContext('2d')!.putImageData(data, 0, 0);
}
