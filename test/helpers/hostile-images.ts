// Images whose header tells less than their frames: a GIF screen, an APNG or animated WebP canvas, a TIFF's
// first page or an AVIF's first `ispe` that says small, over frames or pages that are large. Built byte by
// byte, tiny on the wire; the pixel data is a token (a decoder would fail on it, or fill the rest), since
// what is tested is the size read before any decoder runs. Pure: no Node, no DOM.

export interface Frame {
  left?: number;
  top?: number;
  width: number;
  height: number;
}

const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0));
const le16 = (v: number) => [v & 255, (v >>> 8) & 255];
const le24 = (v: number) => [v & 255, (v >>> 8) & 255, (v >>> 16) & 255];
const le32 = (v: number) => [...le16(v & 0xffff), ...le16(v >>> 16)];
const be32 = (v: number) => [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];

/**
 * A GIF89a of a `width`×`height` screen and the given frames. Each frame has a graphic control extension
 * before it; `comment` adds a comment extension whose text is an image descriptor of 60000×60000 (a walk
 * that reads extensions as blocks would count it).
 */
export function gifFrames(width: number, height: number, frames: Frame[], options: { comment?: boolean } = {}): Uint8Array {
  const out = [...ascii('GIF89a'), ...le16(width), ...le16(height), 0x80, 0, 0];
  // The global colour table: two colours (black, white).
  out.push(0, 0, 0, 255, 255, 255);
  if (options.comment) out.push(0x21, 0xfe, 10, 0x2c, 0, 0, 0, 0, ...le16(60000), ...le16(60000), 0, 0);
  frames.forEach(({ left = 0, top = 0, width: w, height: h }, k) => {
    out.push(0x21, 0xf9, 4, 0, 10, 0, 0, 0);
    // Odd frames carry a local colour table of two colours, which the walk must step over.
    const local = k % 2 === 1;
    out.push(0x2c, ...le16(left), ...le16(top), ...le16(w), ...le16(h), local ? 0x80 : 0);
    if (local) out.push(0, 0, 0, 255, 255, 255);
    // LZW, minimum code size 2: clear, one pixel of colour 0, end of information (3-bit codes).
    out.push(2, 2, 0x44, 0x01, 0);
  });
  out.push(0x3b);
  return new Uint8Array(out);
}

/** A PNG chunk with a zero CRC (nothing here checks CRCs before a decoder does). */
const pngChunk = (type: string, data: number[]) => [...be32(data.length), ...ascii(type), ...data, 0, 0, 0, 0];

/** An APNG: IHDR of `width`×`height`, then a frame control (fcTL) per frame, each followed by a token of data. */
export function apngFrames(width: number, height: number, frames: Frame[]): Uint8Array {
  const out = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  out.push(...pngChunk('IHDR', [...be32(width), ...be32(height), 8, 0, 0, 0, 0]));
  out.push(...pngChunk('acTL', [...be32(frames.length), ...be32(0)]));
  let sequence = 0;
  frames.forEach(({ left = 0, top = 0, width: w, height: h }, k) => {
    out.push(...pngChunk('fcTL', [...be32(sequence++), ...be32(w), ...be32(h), ...be32(left), ...be32(top), 0, 1, 0, 10, 0, 0]));
    out.push(...(k === 0 ? pngChunk('IDAT', [0x78, 0x9c, 3, 0]) : pngChunk('fdAT', [...be32(sequence++), 0x78, 0x9c, 3, 0])));
  });
  out.push(...pngChunk('IEND', []));
  return new Uint8Array(out);
}

/** A RIFF chunk, padded to an even length. */
const riffChunk = (fourcc: string, data: number[]) => [...ascii(fourcc), ...le32(data.length), ...data, ...(data.length & 1 ? [0] : [])];

/** A VP8L chunk whose header says `width`×`height` (the bitstream after it is a token). */
const vp8l = (width: number, height: number) => {
  const bits = (width - 1) | ((height - 1) << 14);
  return riffChunk('VP8L', [0x2f, bits & 255, (bits >>> 8) & 255, (bits >>> 16) & 255, (bits >>> 24) & 0x0f, 0]);
};

/**
 * An animated WebP: a VP8X canvas of `width`×`height`, ANIM, then an ANMF per frame (offsets even, as the
 * format stores them halved) holding a VP8L bitstream of `bitstream` (default the frame's size).
 */
export function animatedWebpFrames(width: number, height: number, frames: (Frame & { bitstream?: [number, number] })[]): Uint8Array {
  const chunks = [...riffChunk('VP8X', [0x02, 0, 0, 0, ...le24(width - 1), ...le24(height - 1)]), ...riffChunk('ANIM', [0, 0, 0, 0, 0, 0])];
  for (const { left = 0, top = 0, width: w, height: h, bitstream } of frames) {
    const [bw, bh] = bitstream ?? [w, h];
    const header = [...le24(left / 2), ...le24(top / 2), ...le24(w - 1), ...le24(h - 1), ...le24(100), 0];
    chunks.push(...riffChunk('ANMF', [...header, ...vp8l(bw, bh)]));
  }
  return new Uint8Array([...ascii('RIFF'), ...le32(4 + chunks.length), ...ascii('WEBP'), ...chunks]);
}

/** A little-endian TIFF of one page per size, each directory giving ImageWidth and ImageLength only. */
export function tiffPages(pages: Frame[], options: { loop?: boolean } = {}): Uint8Array {
  const out = [0x49, 0x49, 0x2a, 0x00, ...le32(8)];
  pages.forEach(({ width, height }, k) => {
    const here = out.length;
    const next = k + 1 < pages.length ? here + 30 : options.loop ? 8 : 0;
    out.push(...le16(2), ...le16(256), ...le16(4), ...le32(1), ...le32(width), ...le16(257), ...le16(4), ...le32(1), ...le32(height));
    out.push(...le32(next));
  });
  return new Uint8Array(out);
}

/**
 * An AVIF with an `ispe` of `width`×`height` added to the end of its item properties (`ipco`), after the
 * sample's own: the boxes around it grow by its 20 bytes.
 */
export function avifWithIspe(avif: Uint8Array, width: number, height: number): Uint8Array {
  const find = (name: string, from: number) => {
    for (let i = from; i + 4 <= avif.length; i++) if (ascii(name).every((c, k) => avif[i + k] === c)) return i - 4;
    throw new Error(`no ${name} box in the sample AVIF`);
  };
  const meta = find('meta', 0);
  const iprp = find('iprp', meta);
  const ipco = find('ipco', iprp);
  const size = (at: number) => ((avif[at]! << 24) | (avif[at + 1]! << 16) | (avif[at + 2]! << 8) | avif[at + 3]!) >>> 0;
  const end = ipco + size(ipco);
  const ispe = [...be32(20), ...ascii('ispe'), 0, 0, 0, 0, ...be32(width), ...be32(height)];
  const out = new Uint8Array(avif.length + ispe.length);
  out.set(avif.subarray(0, end));
  out.set(ispe, end);
  out.set(avif.subarray(end), end + ispe.length);
  for (const box of [meta, iprp, ipco]) out.set(be32(size(box) + ispe.length), box);
  return out;
}

/** An ImageWidth (256) or ImageLength (257) entry as written: its field type, count and value. */
export interface TiffSizeEntry {
  tag: 256 | 257;
  /** The TIFF field type (1 BYTE, 3 SHORT, 4 LONG, 8 SSHORT, 9 SLONG, 13 IFD, 16 LONG8, 17 SLONG8, 18 IFD8, or any other). */
  type: number;
  /** Default 1. */
  count?: number;
  /** Written in the type's size (1, 2, 4 or 8 bytes; other types as 4), two's complement for negative ones. */
  value: bigint;
  /** Where a value of more than four bytes lies, instead of after the directory (past the end, say). */
  offset?: number;
  /** The bytes after a value shorter than its four-byte slot (junk a reader could take as part of it). */
  pad?: number[];
}

const TIFF_TYPE_BYTES: Record<number, number> = {
  1: 1,
  3: 2,
  4: 4,
  8: 2,
  9: 4,
  13: 4,
  16: 8,
  17: 8,
  18: 8,
  6: 1,
  7: 1,
  2: 1,
  5: 8,
  10: 8,
  11: 4,
  12: 8,
};

/**
 * A TIFF of one 8-bit gray page whose ImageWidth and ImageLength are `sizes` (in the order given, a tag
 * twice where it is there twice), with the strip `strip` (`compression` 1 none, 8 deflate) and the other
 * tags a decoder needs, then `pages` as further directories that give only a size. Little- or big-endian.
 */
export function tiffImage(
  sizes: TiffSizeEntry[],
  options: { strip?: Uint8Array; compression?: number; bigEndian?: boolean; pages?: Frame[] } = {},
): Uint8Array {
  const { strip = new Uint8Array(1), compression = 1, bigEndian = false, pages = [] } = options;
  const big = (v: bigint, bytes: number) => {
    const out: number[] = [];
    for (let k = 0; k < bytes; k++) out.push(Number((BigInt.asUintN(64, v) >> BigInt(8 * k)) & 255n));
    return bigEndian ? out.reverse() : out;
  };
  const n16 = (v: number) => big(BigInt(v), 2);
  const n32 = (v: number) => big(BigInt(v), 4);
  type Entry = { tag: number; type: number; count: number; bytes: number[]; offset?: number; pad?: number[] };
  const entries: Entry[] = [
    ...sizes.map((s) => ({
      tag: s.tag,
      type: s.type,
      count: s.count ?? 1,
      bytes: big(s.value, TIFF_TYPE_BYTES[s.type] ?? 4),
      ...(s.offset === undefined ? {} : { offset: s.offset }),
      ...(s.pad === undefined ? {} : { pad: s.pad }),
    })),
    { tag: 258, type: 3, count: 1, bytes: n16(8) },
    { tag: 259, type: 3, count: 1, bytes: n16(compression) },
    { tag: 262, type: 3, count: 1, bytes: n16(1) },
    { tag: 273, type: 4, count: 1, bytes: [] }, // the strip's offset, filled in below
    { tag: 277, type: 3, count: 1, bytes: n16(1) },
    { tag: 278, type: 4, count: 1, bytes: n32(0xffffffff) },
    { tag: 279, type: 4, count: 1, bytes: n32(strip.length) },
  ].sort((a, b) => a.tag - b.tag);
  const ifd = 8;
  const ifdEnd = ifd + 2 + 12 * entries.length + 4;
  const outOfLine = entries.filter((e) => e.bytes.length > 4);
  const valuesEnd = ifdEnd + outOfLine.reduce((sum, e) => sum + e.bytes.length, 0);
  const stripAt = valuesEnd;
  const pagesAt = stripAt + strip.length + (strip.length & 1);
  const out: number[] = [...(bigEndian ? [0x4d, 0x4d] : [0x49, 0x49]), ...n16(42), ...n32(ifd), ...n16(entries.length)];
  let next = ifdEnd;
  const values: number[] = [];
  for (const e of entries) {
    out.push(...n16(e.tag), ...n16(e.type), ...n32(e.count));
    if (e.tag === 273) out.push(...n32(stripAt));
    else if (e.bytes.length > 4) {
      out.push(...n32(e.offset ?? next));
      next += e.bytes.length;
      values.push(...e.bytes);
    } else {
      // A short value sits at the start of its four bytes, whatever the byte order.
      const slot = [...e.bytes, ...(e.pad ?? [0, 0, 0, 0])].slice(0, 4);
      out.push(...slot, ...Array<number>(4 - slot.length).fill(0));
    }
  }
  out.push(...n32(pages.length > 0 ? pagesAt : 0), ...values, ...strip, ...(strip.length & 1 ? [0] : []));
  pages.forEach(({ width, height }, k) => {
    const here = out.length;
    out.push(...n16(2), ...n16(256), ...n16(4), ...n32(1), ...n32(width), ...n16(257), ...n16(4), ...n32(1), ...n32(height));
    out.push(...n32(k + 1 < pages.length ? here + 30 : 0));
  });
  return new Uint8Array(out);
}

/**
 * An AVIF whose primary item is a derived image: a `grid` of `rows`×`columns` tiles or an `iovl` overlay
 * of them, each tile the sample AVIF's own image (its `av1C`, `pixi` and coded data), the derived item's
 * data (its output size, `output`) in `idat`, and its `ispe` saying `ispe` (none when null).
 */
export function avifDerived(
  sample: Uint8Array,
  kind: 'grid' | 'iovl',
  options: { rows: number; columns: number; output: [number, number]; ispe: [number, number] | null },
): Uint8Array {
  const { rows, columns, output, ispe } = options;
  const at = (name: string) => {
    for (let i = 4; i + 4 <= sample.length; i++) if (ascii(name).every((c, k) => sample[i + k] === c)) return i - 4;
    throw new Error(`no ${name} box in the sample AVIF`);
  };
  const boxBytes = (name: string) => {
    const start = at(name);
    return Array.from(
      sample.subarray(
        start,
        start + ((sample[start]! << 24) | (sample[start + 1]! << 16) | (sample[start + 2]! << 8) | sample[start + 3]!),
      ),
    );
  };
  const mdat = boxBytes('mdat').slice(8);
  const be16 = (v: number) => [(v >>> 8) & 255, v & 255];
  const box = (type: string, ...parts: number[][]) => {
    const body = parts.flat();
    return [...be32(8 + body.length), ...ascii(type), ...body];
  };
  const fullBox = (type: string, version: number, flags: number, ...parts: number[][]) => box(type, [version, 0, 0, flags], ...parts);
  const tiles = rows * columns;
  const derived = tiles + 1;
  const infes = Array.from({ length: tiles }, (_, k) => fullBox('infe', 2, 1, be16(k + 1), be16(0), ascii('av01'), [0]));
  infes.push(fullBox('infe', 2, 0, be16(derived), be16(0), ascii(kind), [0]));
  const offsets = Array.from({ length: tiles }, (_, k) => [...be32(24 * (k % columns)), ...be32(16 * Math.floor(k / columns))]).flat();
  const data =
    kind === 'grid'
      ? [0, 1, rows - 1, columns - 1, ...be32(output[0]), ...be32(output[1])]
      : [0, 1, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...be32(output[0]), ...be32(output[1]), ...offsets];
  // Properties: 1 av1C, 2 the tiles' ispe, 3 pixi, 4 the derived item's ispe.
  const ipco = box(
    'ipco',
    boxBytes('av1C'),
    fullBox('ispe', 0, 0, be32(24), be32(16)),
    boxBytes('pixi'),
    fullBox('ispe', 0, 0, be32(ispe?.[0] ?? 0), be32(ispe?.[1] ?? 0)),
  );
  const associations = Array.from({ length: tiles }, (_, k) => [...be16(k + 1), 3, 0x81, 2, 3]).flat();
  associations.push(...be16(derived), ...(ispe === null ? [1, 3] : [2, 4, 3]));
  const ipma = fullBox('ipma', 0, 0, be32(tiles + 1), associations);
  const meta = (mdatStart: number) => {
    const locations = Array.from({ length: tiles }, (_, k) => [
      ...be16(k + 1),
      ...be16(0),
      ...be16(0),
      ...be16(1),
      ...be32(mdatStart),
      ...be32(mdat.length),
    ]).flat();
    locations.push(...be16(derived), ...be16(1), ...be16(0), ...be16(1), ...be32(0), ...be32(data.length));
    return fullBox(
      'meta',
      0,
      0,
      fullBox('hdlr', 0, 0, be32(0), ascii('pict'), Array<number>(12).fill(0), [0]),
      fullBox('pitm', 0, 0, be16(derived)),
      fullBox('iloc', 1, 0, [0x44, 0x00], be16(tiles + 1), locations),
      fullBox('iinf', 0, 0, be16(infes.length), infes.flat()),
      fullBox('iref', 0, 0, box('dimg', be16(derived), be16(tiles), Array.from({ length: tiles }, (_, k) => be16(k + 1)).flat())),
      box('iprp', ipco, ipma),
      box('idat', data),
    );
  };
  const ftyp = boxBytes('ftyp');
  const head = ftyp.length + meta(0).length;
  return new Uint8Array([...ftyp, ...meta(head + 8), ...box('mdat', mdat)]);
}
