// Reads an encoded image's format and size from its first bytes, so that limits are checked before
// any pixel is decoded.

export interface ImageHeader {
  format: 'png' | 'jpeg' | 'gif' | 'webp' | 'bmp' | 'avif' | 'unknown';
  /** Undefined where the format keeps its size deeper than we read (AVIF). */
  width?: number;
  height?: number;
  /** JPEG: the frame's colour components (1 gray, 3 YCbCr or RGB, 4 CMYK or YCCK). */
  components?: number;
  /** JPEG: the EXIF orientation (1–8) where an Exif segment before the frame gives one. */
  orientation?: number;
}

export function readImageHeader(b: Uint8Array): ImageHeader {
  const u16be = (i: number) => (b[i]! << 8) | b[i + 1]!;
  const u16le = (i: number) => b[i]! | (b[i + 1]! << 8);
  const u24le = (i: number) => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16);
  const u32be = (i: number) => ((b[i]! << 24) >>> 0) + ((b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!);
  const ascii = (i: number, n: number) => String.fromCharCode(...b.subarray(i, i + n));
  if (b.length >= 24 && b[0] === 0x89 && ascii(1, 3) === 'PNG') return { format: 'png', width: u32be(16), height: u32be(20) };
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
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
        return { format: 'jpeg', height: u16be(i + 5), width: u16be(i + 7), components: b[i + 9], ...(orientation ? { orientation } : {}) };
      }
      if (marker === 0xe1 && ascii(i + 4, 6) === 'Exif\0\0') orientation = exifOrientation(b.subarray(i + 10, i + 2 + u16be(i + 2)));
      i += 2 + u16be(i + 2);
    }
    return { format: 'jpeg' };
  }
  if (b.length >= 10 && ascii(0, 4) === 'GIF8') return { format: 'gif', width: u16le(6), height: u16le(8) };
  if (b.length >= 30 && ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WEBP') {
    const chunk = ascii(12, 4);
    if (chunk === 'VP8 ') return { format: 'webp', width: u16le(26) & 0x3fff, height: u16le(28) & 0x3fff };
    if (chunk === 'VP8L') {
      const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24);
      return { format: 'webp', width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    }
    if (chunk === 'VP8X') return { format: 'webp', width: u24le(24) + 1, height: u24le(27) + 1 };
    return { format: 'webp' };
  }
  if (b.length >= 26 && ascii(0, 2) === 'BM') {
    const h = b[22]! | (b[23]! << 8) | (b[24]! << 16) | (b[25]! << 24);
    return { format: 'bmp', width: u16le(18) | (u16le(20) << 16), height: Math.abs(h) };
  }
  if (b.length >= 12 && ascii(4, 4) === 'ftyp' && /avi[fs]|heic|mif1/.test(ascii(8, 4))) return { format: 'avif' };
  return { format: 'unknown' };
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
