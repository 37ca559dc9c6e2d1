// The hosted segmentation route's payload, and its undecoded in-memory twin.

/** Exactly what the platform's hosted semantic segmentation route returns (flat form). */
export interface SegmentationPayload {
  /** Class ids as an 8-bit grayscale (colour type 0) PNG of the input's size, base64, no `data:` prefix. */
  segmentation_mask: string;
  /** Class id (as a string) → class name, for every class in class_names.txt order, background included. */
  class_map: Record<string, string>;
  /** The input's size after EXIF orientation. */
  image: {
    /** In pixels. */
    width: number;
    /** In pixels. */
    height: number;
  };
}

/** The payload before PNG encoding: one class id per pixel, row-major. */
export interface RawSegmentation {
  /** One class id per pixel, row-major: `width × height` of them. */
  classIds: Uint8Array;
  /** The image's width after EXIF orientation, in pixels. */
  width: number;
  /** The image's height after EXIF orientation, in pixels. */
  height: number;
  /** Class id (as a string) → class name, as the payload's. */
  class_map: Record<string, string>;
  /**
   * The subject's soft alpha (0–255, one per pixel, row-major), present where it was asked for
   * (`segmentRaw(source, { alpha: true })`): every class but the background, with edges that follow the
   * image. Not part of the payload.
   */
  alpha?: Uint8Array;
}
