// The shapes that flow through the pure pipeline: pixels in, tensor and metadata, logits in, class ids out.

/** 8-bit interleaved pixels: 3 channels (RGB) or 4 (RGBA; alpha is ignored). Orientation already applied. */
export interface PixelImage {
  /** The pixels, row-major, `channels` bytes each. */
  data: Uint8Array | Uint8ClampedArray;
  /** In pixels. */
  width: number;
  /** In pixels. */
  height: number;
  /** 3 (RGB) or 4 (RGBA). */
  channels: 3 | 4;
}

/** How the (cropped) image is brought to the network's input size. */
export type ResizeMode =
  /** Scale each axis independently to the input size (the platform's "Stretch to"). */
  | 'stretch'
  /** Keep the aspect ratio, centre, pad with `paddingValue` (the platform's "Fit (… edges) in"). */
  | 'letterbox'
  /** No scaling: centre-crop (or pad with 0) to the input size (the platform's "Fill (with center crop) in"). */
  | 'center-crop';

/** The platform's "Auto-Adjust Contrast" preprocessing: contrast stretching, histogram equalisation, adaptive (CLAHE). */
export type ContrastType = 'contrast-stretching' | 'histogram-equalization' | 'adaptive-equalization';

/**
 * A model package's preprocessing, normalised from either package generation. Steps run in this order:
 * static crop, grayscale, contrast, resize, channel order, scale, normalise (see docs/exactness.md).
 */
export interface PreprocessSpec {
  /** Static crop in percent of the image (0–100), or null. */
  staticCrop: {
    /** Left edge, percent of the width. */
    xMin: number;
    /** Top edge, percent of the height. */
    yMin: number;
    /** Right edge, percent of the width. */
    xMax: number;
    /** Bottom edge, percent of the height. */
    yMax: number;
  } | null;
  /** Make the image gray (its three channels equal) before the rest. */
  grayscale: boolean;
  /** The contrast adjustment, or null for none. */
  contrast: ContrastType | null;
  /** How the (cropped) image becomes the network's input size. */
  resize: {
    /** Stretch, letterbox or centre-crop. */
    mode: ResizeMode;
    /** The network input's width. */
    width: number;
    /** The network input's height. */
    height: number;
    /** Letterbox padding, in 8-bit pixel units (0, 127 or 255), applied before scaling and normalising. */
    paddingValue: number;
  };
  /** The channel order the network expects. */
  colorMode: 'rgb' | 'bgr';
  /** Pixels are divided by this (255 for [0, 1] inputs); null: not scaled. */
  scalingFactor: number | null;
  /** Per-channel mean and std, in the network's channel order, applied after scaling; null: none. */
  normalization: {
    /** Subtracted from each channel. */
    mean: [number, number, number];
    /** Each channel is divided by it, after the mean is subtracted. */
    std: [number, number, number];
  } | null;
}

/** What postprocessing needs to know about how one image was preprocessed. */
export interface PreprocessMeta {
  /** The image size before the static crop (after orientation): the size of the output mask. */
  originalWidth: number;
  originalHeight: number;
  /** The static crop's rectangle in the original image; the whole image when there is none. */
  cropX: number;
  cropY: number;
  cropWidth: number;
  cropHeight: number;
  /** The network input size. */
  inputWidth: number;
  inputHeight: number;
  /** Letterbox padding in input pixels; negative where a centre crop cut the image. */
  padLeft: number;
  padTop: number;
  padRight: number;
  padBottom: number;
}

/** The model's output for one image: logits `[C, h, w]`, row-major, C-major. */
export interface Logits {
  data: Float32Array;
  channels: number;
  height: number;
  width: number;
  /**
   * Set where the model's trailing Resize was removed (the WASM worker does that): the logits stand for
   * their upsampling to `height × width` as that Resize computes it (onnxruntime's CPU `linear`,
   * `half_pixel`), and postprocessing treats them as those virtual logits. Absent: the logits are as given.
   */
  upsample?: { height: number; width: number; mode: 'onnx-linear-half-pixel' };
}

export interface PostprocessOptions {
  /** 0–100; pixels whose max probability is below confidence / 100 become background. */
  confidence: number;
  /** Number of classes in class_names.txt (background included). */
  classCount: number;
  /** Index of the background class in class_names.txt. */
  backgroundClassId: number;
}
