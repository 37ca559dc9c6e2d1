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
