// Where the (cropped) image lands in the network input, per resize mode, as the reference computes it.
import type { PreprocessSpec } from './types.js';

export interface ResizeGeometry {
  /** Size the image is scaled to (equal to the source size for centre crop). */
  scaledWidth: number;
  scaledHeight: number;
  /** Where the scaled image's visible part starts in the input, and where in the scaled image. */
  dstX: number;
  dstY: number;
  srcX: number;
  srcY: number;
  /** Size of the visible part. */
  copyWidth: number;
  copyHeight: number;
  /** Padding in input pixels as the reference reports it: negative where a centre crop cut the image. */
  padLeft: number;
  padTop: number;
  padRight: number;
  padBottom: number;
  /** The 8-bit value of input pixels outside the image. */
  fill: number;
}

export function resizeGeometry(resize: PreprocessSpec['resize'], width: number, height: number): ResizeGeometry {
  const { width: W, height: H } = resize;
  if (resize.mode === 'stretch') {
    return {
      scaledWidth: W,
      scaledHeight: H,
      dstX: 0,
      dstY: 0,
      srcX: 0,
      srcY: 0,
      copyWidth: W,
      copyHeight: H,
      padLeft: 0,
      padTop: 0,
      padRight: 0,
      padBottom: 0,
      fill: 0,
    };
  }
  if (resize.mode === 'letterbox') {
    // handle_numpy_input_preparation_with_letterbox: truncations exactly as there.
    const scale = Math.min(W / width, H / height);
    const w = Math.trunc(width * scale);
    const h = Math.trunc(height * scale);
    const top = Math.trunc((H - h) / 2);
    const left = Math.trunc((W - w) / 2);
    return {
      scaledWidth: w,
      scaledHeight: h,
      dstX: left,
      dstY: top,
      srcX: 0,
      srcY: 0,
      copyWidth: w,
      copyHeight: h,
      padLeft: left,
      padTop: top,
      padRight: W - left - w,
      padBottom: H - top - h,
      fill: resize.paddingValue,
    };
  }
  // Centre crop: pad (with 0) where the image is smaller, cut where it is larger.
  const axis = (size: number, target: number) => {
    const pad = Math.max(target - size, 0);
    const cut = Math.max(size - target, 0);
    const padStart = pad >> 1;
    const cutStart = cut >> 1;
    return {
      dst: padStart,
      src: cutStart,
      copy: Math.min(size, target),
      before: pad > 0 ? padStart : -cutStart,
      after: pad > 0 ? pad - padStart : -(cut - cutStart),
    };
  };
  const x = axis(width, W);
  const y = axis(height, H);
  return {
    scaledWidth: width,
    scaledHeight: height,
    dstX: x.dst,
    dstY: y.dst,
    srcX: x.src,
    srcY: y.src,
    copyWidth: x.copy,
    copyHeight: y.copy,
    padLeft: x.before,
    padTop: y.before,
    padRight: x.after,
    padBottom: y.after,
    fill: 0,
  };
}
