// The one allow-list of encoded image formats, and the reading of an image's format and size from its
// bytes before any decoder sees them. Shared by Node (libvips) and the browser worker: no DOM, no sharp.
import { InvalidInputError } from '../errors/index.js';
import { isHtmlPage } from './html-page.js';

/** The formats edgeseg decodes, everywhere. Anything else is refused before a decoder is reached. */
export const IMAGE_FORMATS = ['jpeg', 'png', 'webp', 'gif', 'avif', 'tiff'] as const;
/** One of the formats edgeseg decodes (`IMAGE_FORMATS`). */
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

/**
 * Formats recognised by their signature and refused: decoders exist for some of them (browsers read BMP
 * and ICO, libvips has SVG and PDF loaders), but those loaders are not meant for untrusted input, and
 * one list for every environment means an image works in the browser exactly where it works in Node.
 */
export type RefusedFormat = 'bmp' | 'ico' | 'svg' | 'pdf' | 'heic' | 'heif' | 'jxl' | 'jp2' | 'psd' | 'bigtiff';

const NAMES: Record<ImageFormat | RefusedFormat, string> = {
  jpeg: 'JPEG',
  png: 'PNG',
  webp: 'WebP',
  gif: 'GIF',
  avif: 'AVIF',
  tiff: 'TIFF',
  bmp: 'BMP',
  ico: 'ICO',
  svg: 'SVG',
  pdf: 'PDF',
  heic: 'HEIC',
  heif: 'HEIF',
  jxl: 'JPEG XL',
  jp2: 'JPEG 2000',
  psd: 'PSD',
  bigtiff: 'BigTIFF',
};

/** The format's usual name (`WebP`, `JPEG XL`), for messages. */
export const formatName = (format: ImageFormat | RefusedFormat): string => NAMES[format];

const ALLOWED = `${IMAGE_FORMATS.slice(0, -1).map(formatName).join(', ')} or ${formatName('tiff')}`;

export interface ImageHeader {
  format: ImageFormat;
  /**
   * The size a decoder may allocate for: the image's, or where a file holds several frames or pages the
   * largest of them (a GIF's screen and every frame's extent, an APNG's or animated WebP's canvas and
   * frames, a multi-page TIFF's largest page with its sizes read as libtiff reads them, an AVIF's largest
   * `ispe` or grid or overlay canvas), since a header's screen or first page can say 1×1 over a frame of
   * 7000×7000. Undefined where the file keeps its size deeper than this reads (an AVIF without `ispe`).
   */
  width?: number;
  height?: number;
  /** JPEG: the frame's colour components (1 gray, 3 YCbCr or RGB, 4 CMYK or YCCK). */
  components?: number;
  /** JPEG: the EXIF orientation (1–8) where an Exif segment before the frame gives one. */
  orientation?: number;
}

const AVIF_BRANDS = new Set(['avif', 'avis']);
const HEIC_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'hevm', 'hevs']);

/** The format whose signature the bytes start with, allowed or refused; null when none is known. */
export function sniffImageFormat(b: Uint8Array): ImageFormat | RefusedFormat | null {
  const at = (offset: number, ...bytes: number[]) => bytes.every((v, i) => b[offset + i] === v);
  const ascii = (offset: number, s: string) => b.length >= offset + s.length && at(offset, ...Array.from(s, (c) => c.charCodeAt(0)));
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'jpeg';
  if (ascii(0, 'GIF87a') || ascii(0, 'GIF89a')) return 'gif';
  if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return 'webp';
  if (at(0, 0x49, 0x49, 0x2a, 0x00) || at(0, 0x4d, 0x4d, 0x00, 0x2a)) return 'tiff';
  if (at(0, 0x49, 0x49, 0x2b, 0x00) || at(0, 0x4d, 0x4d, 0x00, 0x2b)) return 'bigtiff';
  if (ascii(4, 'ftyp')) return isoBrand(b);
  if (ascii(0, 'BM')) return 'bmp';
  if (at(0, 0x00, 0x00, 0x01, 0x00) || at(0, 0x00, 0x00, 0x02, 0x00)) return 'ico';
  if (ascii(0, '%PDF')) return 'pdf';
  if (ascii(0, '8BPS')) return 'psd';
  // JPEG XL's container only: its bare codestream's two bytes (ff 0a) are the base64 of `/wo`, a common path start.
  if (at(0, 0x00, 0x00, 0x00, 0x0c, 0x4a, 0x58, 0x4c, 0x20)) return 'jxl';
  if (at(0, 0x00, 0x00, 0x00, 0x0c, 0x6a, 0x50, 0x20, 0x20) || at(0, 0xff, 0x4f, 0xff, 0x51)) return 'jp2';
  if (looksLikeSvg(b)) return 'svg';
  return null;
}

/** An ISO base media file (`ftyp` box): AVIF when its major or a compatible brand says so. */
function isoBrand(b: Uint8Array): 'avif' | 'heic' | 'heif' {
  const size = Math.min(u32be(b, 0), b.length);
  const brands = [brand(b, 8)];
  for (let i = 16; i + 4 <= size; i += 4) brands.push(brand(b, i));
  if (brands.some((x) => AVIF_BRANDS.has(x))) return 'avif';
  if (brands.some((x) => HEIC_BRANDS.has(x))) return 'heic';
  return 'heif';
}

/** `<svg` as the root element: after an optional BOM, XML declaration, comments and SVG doctype. */
function looksLikeSvg(b: Uint8Array): boolean {
  if (b[0] !== 0x3c && b[0] !== 0xef && b[0] !== 0x20 && b[0] !== 0x09 && b[0] !== 0x0a && b[0] !== 0x0d) return false;
  const text = new TextDecoder().decode(b.subarray(0, 4096)).replace(/^\uFEFF/, '');
  return /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*|<!doctype svg[^>]*>\s*)*<svg[\s>]/i.test(text);
}

/**
 * The image's format and size from its first bytes, before anything decodes it. Refuses, with a coded
 * error: no bytes (`IMAGE_EMPTY`), a format outside the allow-list (`IMAGE_FORMAT_UNSUPPORTED`), and a
 * header that is cut short or gives a zero or negative size (`IMAGE_DECODE_FAILED`).
 */
export function readImageHeader(b: Uint8Array): ImageHeader {
  if (b.length === 0) throw new InvalidInputError('IMAGE_EMPTY', 'the image is empty (0 bytes)');
  const format = sniffImageFormat(b);
  if (format === null) {
    // The common way to get here: an image URL that a single-page-app host answers with its index.html.
    const what = isHtmlPage(b) ? 'an HTML page, not an image' : 'not an image edgeseg decodes';
    throw new InvalidInputError('IMAGE_FORMAT_UNSUPPORTED', `the bytes are ${what} (${ALLOWED})`);
  }
  if (!(IMAGE_FORMATS as readonly string[]).includes(format)) {
    throw new InvalidInputError('IMAGE_FORMAT_UNSUPPORTED', `${formatName(format)} images are not decoded; send ${ALLOWED}`);
  }
  const header = SIZE_READERS[format as ImageFormat](b);
  if (header.width !== undefined && header.height !== undefined && !(header.width > 0 && header.height > 0)) {
    throw new InvalidInputError(
      'IMAGE_DECODE_FAILED',
      `the ${formatName(header.format)} header says the image is ${header.width}×${header.height}`,
    );
  }
  const walk = STRUCTURE[format as ImageFormat];
  if (walk === undefined) return header;
  const { width, height } = walk(b, { width: header.width ?? 0, height: header.height ?? 0 });
  return header.width === undefined ? header : { ...header, width, height };
}

interface Extent {
  width: number;
  height: number;
}

/** Grows `extent` to cover a frame at (`left`, `top`) of `width`×`height`: the canvas the frames are drawn on. */
const cover = (extent: Extent, left: number, top: number, width: number, height: number): void => {
  extent.width = Math.max(extent.width, left + width);
  extent.height = Math.max(extent.height, top + height);
};

/**
 * The container's structure, walked before any decoder sees it: whether it holds all it announces, and the
 * extent of the frames or pages it holds beyond the header's size. Browsers other than Chromium decode
 * what they can of a cut PNG, GIF or WebP (and paint the rest transparent), as they do for a page still
 * loading; libvips and Chromium refuse it: checking here gives the same IMAGE_DECODE_FAILED everywhere.
 * Decoders size their canvas from the frames, not only the header (libvips grows a GIF's screen to its
 * first frame, browsers likewise), so a frame's extent is what a decode may allocate. The walks read chunk,
 * block and directory headers only, never pixels, and each is bounded by the bytes (TIFF's by a count).
 */
const STRUCTURE: Partial<Record<ImageFormat, (b: Uint8Array, header: Extent) => Extent>> = {
  png(b, header) {
    const extent = { ...header };
    for (let i = 8; ;) {
      if (i + 12 > b.length) throw truncated('png', 'it ends before its IEND chunk');
      const length = u32be(b, i);
      if (i + 12 + length > b.length) throw truncated('png', `its ${JSON.stringify(brand(b, i + 4))} chunk runs past the end`);
      const type = brand(b, i + 4);
      if (type === 'IEND') return extent;
      // APNG's frame control: sequence, width, height, x offset, y offset.
      if (type === 'fcTL' && length >= 20) cover(extent, u32be(b, i + 20), u32be(b, i + 24), u32be(b, i + 12), u32be(b, i + 16));
      i += 12 + length;
    }
  },
  webp(b, header) {
    // RIFF's size counts the bytes after its first 8.
    const size = u32le(b, 4);
    if (8 + size > b.length) throw truncated('webp', `its RIFF header announces ${8 + size} bytes and there are ${b.length}`);
    const extent = { ...header };
    const chunks = (start: number, end: number, frame: { left: number; top: number } | null): void => {
      for (let i = start; i + 8 <= end;) {
        const fourcc = brand(b, i);
        const length = u32le(b, i + 4);
        const payload = i + 8;
        const stop = Math.min(end, payload + length);
        if (fourcc === 'ANMF' && frame === null && payload + 16 <= stop) {
          // An animation frame: its offset (in units of two pixels) and size, then its own chunks.
          const left = 2 * u24le(b, payload);
          const top = 2 * u24le(b, payload + 3);
          cover(extent, left, top, u24le(b, payload + 6) + 1, u24le(b, payload + 9) + 1);
          chunks(payload + 16, stop, { left, top });
        } else {
          const stream = webpBitstreamSize(b, fourcc, payload, stop);
          if (stream) cover(extent, frame?.left ?? 0, frame?.top ?? 0, stream.width, stream.height);
        }
        i = payload + length + (length & 1);
      }
    };
    chunks(12, 8 + size, null);
    return extent;
  },
  gif(b, header) {
    // Header and logical screen, the global colour table, then blocks up to the trailer (0x3B).
    const extent = { ...header };
    let i = 13 + (b[10]! & 0x80 ? 3 << ((b[10]! & 7) + 1) : 0);
    const subBlocks = () => {
      for (;;) {
        if (i >= b.length) throw truncated('gif', 'it ends inside a block');
        const n = b[i]!;
        i += 1 + n;
        if (n === 0) return;
      }
    };
    for (;;) {
      if (i >= b.length) throw truncated('gif', 'it ends before its trailer');
      const block = b[i]!;
      if (block === 0x3b) return extent;
      if (block === 0x21) {
        i += 2;
        subBlocks();
      } else if (block === 0x2c) {
        if (i + 10 > b.length) throw truncated('gif', 'it ends inside an image descriptor');
        // The image descriptor: left, top, width, height, flags.
        cover(extent, u16le(b, i + 1), u16le(b, i + 3), u16le(b, i + 5), u16le(b, i + 7));
        const flags = b[i + 9]!;
        i += 10 + (flags & 0x80 ? 3 << ((flags & 7) + 1) : 0) + 1;
        subBlocks();
      } else {
        throw truncated('gif', `an unknown block 0x${block.toString(16)} at byte ${i}`);
      }
    }
  },
  tiff(b, header) {
    // Every page: the largest in pixels (pages are decoded one at a time, not drawn on one canvas). A
    // directory that gives no size is passed over; one outside the file, or seen before, ends the walk.
    const { u16, u32 } = tiffReaders(b);
    let largest = header;
    const seen = new Set<number>();
    let entries = 0;
    for (let ifd = u32(4); ifd >= 8 && ifd + 2 <= b.length && !seen.has(ifd) && entries < MAX_TIFF_ENTRIES;) {
      seen.add(ifd);
      const n = u16(ifd);
      entries += n + 1;
      const page = tiffPageSize(b, ifd, n);
      if (page && page.width * page.height > largest.width * largest.height) largest = page;
      const next = ifd + 2 + 12 * n;
      if (next + 4 > b.length) break;
      ifd = u32(next);
    }
    return largest;
  },
  avif(b, header) {
    // Every item's `ispe` (the primary image, its grid's tiles, alpha, thumbnails), and the canvas of every
    // derived image (a grid's output size, an overlay's canvas), which libheif allocates from the item's own
    // data whatever its `ispe` says: the largest in pixels.
    const ipco = findBox(b, 0, b.length, ['meta', 'iprp', 'ipco']);
    let largest = header;
    const consider = (size: Extent) => {
      if (size.width * size.height > largest.width * largest.height) largest = size;
    };
    for (let i = ipco?.start ?? 0, end = ipco?.end ?? 0; i + 8 <= end;) {
      const size = u32be(b, i);
      if (size < 8 || i + size > end) break;
      if (brand(b, i + 4) === 'ispe' && size >= 20) consider({ width: u32be(b, i + 12), height: u32be(b, i + 16) });
      i += size;
    }
    for (const canvas of derivedCanvases(b)) consider(canvas);
    return largest;
  },
};

/**
 * Directory entries a TIFF's page walk reads, all pages together: each directory may claim 65,535 entries
 * and point back into another's, so the count bounds the walk. libvips decodes the first page only; the
 * later pages are weighed for decoders that read them all.
 */
const MAX_TIFF_ENTRIES = 1 << 20;

/** The pixel limit of every image edgeseg decodes, unless `maxPixels` says otherwise: 50 megapixels. */
export const DEFAULT_MAX_PIXELS = 50_000_000;

/** The pixel limit that an option `maxPixels` sets: DEFAULT_MAX_PIXELS where it is left out; OPTION_INVALID unless a positive number. */
export function pixelLimit(maxPixels: unknown): number {
  if (maxPixels === undefined) return DEFAULT_MAX_PIXELS;
  if (typeof maxPixels !== 'number' || !(maxPixels > 0))
    throw new InvalidInputError(
      'OPTION_INVALID',
      `maxPixels must be a positive number of pixels, got ${typeof maxPixels === 'number' ? String(maxPixels) : typeof maxPixels}`,
    );
  return maxPixels;
}

/** Refuses an image over the pixel limit, from its size alone (a header's, or a decoded image's). */
export function checkPixelCount(width: number, height: number, maxPixels: number): void {
  if (width * height > maxPixels) {
    throw new InvalidInputError(
      'IMAGE_TOO_LARGE',
      `the image has ${width}×${height} = ${((width * height) / 1e6).toFixed(1)} megapixels; the limit is ${(maxPixels / 1e6).toFixed(1)}`,
    );
  }
}

const truncated = (format: ImageFormat, what: string) =>
  new InvalidInputError('IMAGE_DECODE_FAILED', `the ${formatName(format)} image is cut short or corrupt: ${what}`);

const u16be = (b: Uint8Array, i: number) => (b[i]! << 8) | b[i + 1]!;
const u16le = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8);
const u24le = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16);
const u32le = (b: Uint8Array, i: number) => u24le(b, i) + b[i + 3]! * 0x1000000;
const u32be = (b: Uint8Array, i: number) => b[i]! * 0x1000000 + ((b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!);
/** A signed 32-bit value: PNG, for one, allows sizes up to 2³¹ − 1, so a larger one is a negative size. */
const i32be = (b: Uint8Array, i: number) => (b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!;
const brand = (b: Uint8Array, i: number) => String.fromCharCode(b[i] ?? 0, b[i + 1] ?? 0, b[i + 2] ?? 0, b[i + 3] ?? 0);

const SIZE_READERS: Record<ImageFormat, (b: Uint8Array) => ImageHeader> = {
  png(b) {
    if (b.length < 24 || brand(b, 12) !== 'IHDR') throw truncated('png', 'no IHDR chunk after the signature');
    return { format: 'png', width: i32be(b, 16), height: i32be(b, 20) };
  },
  jpeg(b) {
    // Walk the markers to the frame header (SOF0–SOF15, except DHT, JPG, DAC).
    let i = 2;
    let orientation: number | undefined;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) {
        i++;
        continue;
      }
      const marker = b[i + 1]!;
      if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0xff) {
        i += marker === 0xff ? 1 : 2;
        continue;
      }
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return {
          format: 'jpeg',
          height: u16be(b, i + 5),
          width: u16be(b, i + 7),
          components: b[i + 9]!,
          ...(orientation ? { orientation } : {}),
        };
      }
      if (marker === 0xe1 && brand(b, i + 4) === 'Exif' && b[i + 8] === 0 && b[i + 9] === 0) {
        orientation = exifOrientation(b.subarray(i + 10, i + 2 + u16be(b, i + 2)));
      }
      i += 2 + u16be(b, i + 2);
    }
    throw truncated('jpeg', 'no frame header');
  },
  gif(b) {
    if (b.length < 10) throw truncated('gif', 'no logical screen size');
    return { format: 'gif', width: u16le(b, 6), height: u16le(b, 8) };
  },
  webp(b) {
    if (b.length < 30) throw truncated('webp', 'no image chunk');
    const chunk = brand(b, 12);
    // VP8X's canvas: flags and reserved bytes, then width − 1 and height − 1.
    if (chunk === 'VP8X') return { format: 'webp', width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 };
    const stream = webpBitstreamSize(b, chunk, 20, b.length);
    if (stream) return { format: 'webp', ...stream };
    throw truncated('webp', `its first chunk is ${JSON.stringify(chunk)}, not VP8, VP8L or VP8X`);
  },
  tiff(b) {
    if (b.length < 8) throw truncated('tiff', 'no first directory');
    const { u16, u32 } = tiffReaders(b);
    const ifd = u32(4);
    if (ifd < 8 || ifd + 2 > b.length) throw truncated('tiff', 'the first directory lies outside the file');
    const page = tiffPageSize(b, ifd, u16(ifd));
    if (!page) throw truncated('tiff', 'the first directory gives no width and height that decoders read');
    return { format: 'tiff', ...page };
  },
  avif(b) {
    // The size is in the `ispe` property: meta → iprp → ipco → ispe. Absent, the decoder finds out.
    const ispe = findBox(b, 0, b.length, ['meta', 'iprp', 'ipco', 'ispe']);
    if (ispe === null) return { format: 'avif' };
    if (ispe.end - ispe.start < 12) throw truncated('avif', 'its ispe property is too short');
    return { format: 'avif', width: u32be(b, ispe.start + 4), height: u32be(b, ispe.start + 8) };
  },
};

/** The size a VP8 (lossy) or VP8L (lossless) bitstream gives, its payload at `at`; null for other chunks. */
function webpBitstreamSize(b: Uint8Array, fourcc: string, at: number, end: number): Extent | null {
  // VP8: a 3-byte frame tag and a 3-byte start code, then 14 bits of width and of height.
  if (fourcc === 'VP8 ' && at + 10 <= end) return { width: u16le(b, at + 6) & 0x3fff, height: u16le(b, at + 8) & 0x3fff };
  // VP8L: a signature byte, then 14 bits of width − 1 and 14 of height − 1.
  if (fourcc === 'VP8L' && at + 5 <= end) {
    const bits = b[at + 1]! | (b[at + 2]! << 8) | (b[at + 3]! << 16) | (b[at + 4]! << 24);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  return null;
}

/** A TIFF's 16- and 32-bit readers, in the byte order its first two bytes name. */
function tiffReaders(b: Uint8Array) {
  const little = b[0] === 0x49;
  return {
    u16: (i: number) => (little ? u16le(b, i) : u16be(b, i)),
    u32: (i: number) => (little ? u16le(b, i) + u16le(b, i + 2) * 0x10000 : u32be(b, i)),
  };
}

/**
 * The field types libtiff reads an ImageWidth or ImageLength from, with their sizes in bytes: BYTE, SHORT,
 * LONG, SBYTE, SSHORT, SLONG, IFD, LONG8, SLONG8, IFD8. A value of more than four bytes is kept at an
 * offset (a LONG8's four-byte entry is that offset, not the size); a negative one, or one past 32 bits,
 * fails the directory, as does any other type (ASCII, RATIONAL, FLOAT…) or a count other than 1.
 */
const TIFF_SIZE_TYPES: ReadonlyMap<number, { bytes: 1 | 2 | 4 | 8; signed: boolean }> = new Map([
  [1, { bytes: 1, signed: false }],
  [3, { bytes: 2, signed: false }],
  [4, { bytes: 4, signed: false }],
  [6, { bytes: 1, signed: true }],
  [8, { bytes: 2, signed: true }],
  [9, { bytes: 4, signed: true }],
  [13, { bytes: 4, signed: false }],
  [16, { bytes: 8, signed: false }],
  [17, { bytes: 8, signed: true }],
  [18, { bytes: 8, signed: false }],
]);

/** The value of the size entry at `e` as libtiff reads it, or null where libtiff refuses the directory for it. */
function tiffSizeValue(b: Uint8Array, e: number): number | null {
  const { u16, u32 } = tiffReaders(b);
  const type = TIFF_SIZE_TYPES.get(u16(e + 2));
  if (type === undefined || u32(e + 4) !== 1) return null;
  const at = type.bytes <= 4 ? e + 8 : u32(e + 8);
  if (at + type.bytes > b.length) return null;
  if (type.bytes === 1) return type.signed && b[at]! >= 0x80 ? null : b[at]!;
  const little = b[0] === 0x49;
  if (type.bytes === 2) {
    const v = u16(at);
    return type.signed && v >= 0x8000 ? null : v;
  }
  if (type.bytes === 4) {
    const v = u32(at);
    return type.signed && v >= 0x80000000 ? null : v;
  }
  // Eight bytes: libtiff takes them only where the high word is zero (a size is 32 bits).
  const [low, high] = little ? [u32(at), u32(at + 4)] : [u32(at + 4), u32(at)];
  return high === 0 ? low : null;
}

/**
 * The ImageWidth and ImageLength of the TIFF directory at `ifd` with `n` entries, as libtiff reads them:
 * null where the directory lacks one, or where libtiff would refuse it for the first of either (a type it
 * does not read them from, a count other than 1, a value out of range). A tag given again counts at its
 * larger value: libtiff takes the first, another decoder may not.
 */
function tiffPageSize(b: Uint8Array, ifd: number, n: number): Extent | null {
  const { u16 } = tiffReaders(b);
  const sizes: Partial<Record<256 | 257, number>> = {};
  for (let k = 0; k < n; k++) {
    const e = ifd + 2 + 12 * k;
    if (e + 12 > b.length) break;
    const tag = u16(e);
    if (tag !== 256 && tag !== 257) continue;
    const value = tiffSizeValue(b, e);
    if (value === null) {
      if (sizes[tag] === undefined) return null;
      continue;
    }
    sizes[tag] = Math.max(sizes[tag] ?? 0, value);
  }
  const { 256: width, 257: height } = sizes;
  return width === undefined || height === undefined ? null : { width, height };
}

/**
 * The output size of each derived image item of an HEIF/AVIF (`grid`: a version byte, flags, rows − 1,
 * columns − 1, then width and height; `iovl`: a version byte, flags, four 16-bit fill values, then width
 * and height; the sizes 32-bit where flags bit 0 is set, else 16-bit), its data found through `iloc` in the
 * file or in `idat`. Items whose data cannot be found are passed over: no decoder reads them either.
 */
function derivedCanvases(b: Uint8Array): Extent[] {
  const meta = findBox(b, 0, b.length, ['meta']);
  if (meta === null) return [];
  const derived = new Map<number, string>();
  const iinf = findBox(b, meta.start, meta.end, ['iinf']);
  if (iinf !== null) {
    for (let i = iinf.start + 4 + (b[iinf.start] === 0 ? 2 : 4); i + 8 <= iinf.end;) {
      const size = u32be(b, i);
      if (size < 8 || i + size > iinf.end) break;
      // infe version 2 or 3: a 16- or 32-bit item ID, a 16-bit protection index, then the item's type.
      const version = b[i + 8];
      if (brand(b, i + 4) === 'infe' && (version === 2 || version === 3)) {
        const at = i + 12;
        const id = version === 2 ? u16be(b, at) : u32be(b, at);
        const type = brand(b, at + (version === 2 ? 4 : 6));
        if (type === 'grid' || type === 'iovl') derived.set(id, type);
      }
      i += size;
    }
  }
  if (derived.size === 0) return [];
  const iloc = findBox(b, meta.start, meta.end, ['iloc']);
  const idat = findBox(b, meta.start, meta.end, ['idat']);
  if (iloc === null) return [];
  // iloc: version, flags, the sizes of its fields (offset, length, base offset, index: 0, 4 or 8 bytes),
  // the item count, then each item's ID, construction method (0: in the file, 1: in idat), base offset
  // and extents; an item's data starts at its first extent.
  const version = b[iloc.start]!;
  if (version > 2) return [];
  const offsetSize = b[iloc.start + 4]! >> 4;
  const lengthSize = b[iloc.start + 4]! & 15;
  const baseSize = b[iloc.start + 5]! >> 4;
  const indexSize = version === 0 ? 0 : b[iloc.start + 5]! & 15;
  const sized = (at: number, bytes: number): number =>
    bytes === 0 ? 0 : bytes === 4 ? u32be(b, at) : bytes === 8 ? u32be(b, at) * 0x100000000 + u32be(b, at + 4) : NaN;
  const wideIds = version === 2;
  const count = wideIds ? u32be(b, iloc.start + 6) : u16be(b, iloc.start + 6);
  const canvases: Extent[] = [];
  let i = iloc.start + (wideIds ? 10 : 8);
  for (let k = 0; k < count && i + 4 <= iloc.end; k++) {
    const id = wideIds ? u32be(b, i) : u16be(b, i);
    i += wideIds ? 4 : 2;
    const method = version === 0 ? 0 : u16be(b, i) & 15;
    i += version === 0 ? 2 : 4;
    const base = sized(i, baseSize);
    i += baseSize;
    const extents = u16be(b, i);
    const first = i + 2;
    i = first + extents * (indexSize + offsetSize + lengthSize);
    const type = derived.get(id);
    if (type === undefined || extents === 0 || i > iloc.end) continue;
    const offset = base + sized(first + indexSize, offsetSize);
    const start = method === 0 ? offset : method === 1 && idat !== null ? idat.start + offset : NaN;
    if (!Number.isSafeInteger(start)) continue;
    const at = start + (type === 'grid' ? 4 : 10);
    const wide = (b[start + 1]! & 1) === 1;
    if (at + (wide ? 8 : 4) > b.length) continue;
    canvases.push(wide ? { width: u32be(b, at), height: u32be(b, at + 4) } : { width: u16be(b, at), height: u16be(b, at + 2) });
  }
  return canvases;
}

/** The payload range of the box at `path` (each step a child of the one before), walking ISO-BMFF boxes. */
function findBox(b: Uint8Array, start: number, end: number, path: string[]): { start: number; end: number } | null {
  const [name, ...rest] = path;
  for (let i = start; i + 8 <= end;) {
    let size = u32be(b, i);
    let header = 8;
    if (size === 1) {
      if (i + 16 > end) return null;
      size = u32be(b, i + 8) * 0x100000000 + u32be(b, i + 12);
      header = 16;
    } else if (size === 0) size = end - i;
    if (size < header || i + size > end) return null;
    if (brand(b, i + 4) === name) {
      // `meta` is a full box: four bytes of version and flags before its children.
      const payload = i + header + (name === 'meta' ? 4 : 0);
      return rest.length === 0 ? { start: payload, end: i + size } : findBox(b, payload, i + size, rest);
    }
    i += size;
  }
  return null;
}

/** Tag 0x0112 of the first IFD of an Exif block (a TIFF structure), if it is there and in range. */
function exifOrientation(tiff: Uint8Array): number | undefined {
  if (tiff.length < 8) return undefined;
  const little = tiff[0] === 0x49 && tiff[1] === 0x49;
  if (!little && !(tiff[0] === 0x4d && tiff[1] === 0x4d)) return undefined;
  const u16 = (i: number) => (little ? tiff[i]! | (tiff[i + 1]! << 8) : (tiff[i]! << 8) | tiff[i + 1]!);
  const u32 = (i: number) => (little ? u16(i) + u16(i + 2) * 65536 : u16(i) * 65536 + u16(i + 2));
  const ifd = u32(4);
  if (ifd + 2 > tiff.length) return undefined;
  const entries = u16(ifd);
  for (let k = 0; k < entries; k++) {
    const e = ifd + 2 + 12 * k;
    if (e + 12 > tiff.length) return undefined;
    if (u16(e) === 0x0112) {
      const value = u16(e + 8);
      return value >= 1 && value <= 8 ? value : undefined;
    }
  }
  return undefined;
}
