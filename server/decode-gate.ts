// How much image the platform decodes at once. A legal image can be tiny on the wire and huge decoded (a
// 2 KB lossless WebP of 16383×3050 costs about 800 MB while it is decoded and segmented), so decodes are
// admitted by their pixel count against a budget: small images run side by side, a huge one runs alone,
// a few more wait their turn in order, and past that the request is refused at once with 503 and
// `Retry-After` rather than queued without end.
import { readImageHeader } from '../src/decode/image-header.js';
import { HttpError } from './http.js';

export interface DecodeGateLimits {
  /** Pixels decoded at once, all requests together; one image over it still runs, alone. */
  maxDecodePixels: number;
  /** Requests that may wait for their turn; more are 503 `ServerBusy`. */
  maxDecodesWaiting: number;
  /** Seconds a refused client is told to wait (`Retry-After`). */
  retryAfterS: number;
}

interface Waiter {
  weight: number;
  start: () => void;
}

export class DecodeGate {
  #pixels = 0;
  #running = 0;
  #waiting: Waiter[] = [];

  constructor(private readonly limits: DecodeGateLimits) {}

  /** Decodes now running and waiting (for tests and logs). */
  get load(): { running: number; waiting: number; pixels: number } {
    return { running: this.#running, waiting: this.#waiting.length, pixels: this.#pixels };
  }

  /** Runs `task` once `weight` pixels fit the budget (in arrival order); 503 when too many already wait. */
  async run<T>(weight: number, task: () => Promise<T>): Promise<T> {
    const w = Math.min(Math.max(1, weight), this.limits.maxDecodePixels);
    if (this.#waiting.length === 0 && this.#fits(w)) this.#admit(w);
    else if (this.#waiting.length >= this.limits.maxDecodesWaiting) {
      const error = new HttpError(
        503,
        `the server is decoding as many images as it may (${this.#running} running, ${this.#waiting.length} waiting)`,
        'ServerBusy',
        `retry after ${this.limits.retryAfterS} s`,
      );
      error.retryAfterS = this.limits.retryAfterS;
      throw error;
    } else await new Promise<void>((start) => this.#waiting.push({ weight: w, start }));
    try {
      return await task();
    } finally {
      this.#pixels -= w;
      this.#running--;
      this.#drain();
    }
  }

  #fits(weight: number): boolean {
    return this.#running === 0 || this.#pixels + weight <= this.limits.maxDecodePixels;
  }

  #admit(weight: number): void {
    this.#pixels += weight;
    this.#running++;
  }

  #drain(): void {
    while (this.#waiting.length > 0 && this.#fits(this.#waiting[0]!.weight)) {
      const next = this.#waiting.shift()!;
      this.#admit(next.weight);
      next.start();
    }
  }
}

/**
 * What decoding `bytes` will cost, in pixels, from the image's header and the frames or pages behind it (a
 * GIF's screen can say 1×1 over a frame of 7000×7000, which libvips decodes whole); an image whose header
 * gives no size counts as the largest allowed, bytes that are no image as one pixel (they fail before any
 * decode).
 */
export function pixelWeight(bytes: Uint8Array, maxPixels: number): number {
  try {
    const { width, height } = readImageHeader(bytes);
    return width !== undefined && height !== undefined ? width * height : maxPixels;
  } catch {
    return 1;
  }
}
