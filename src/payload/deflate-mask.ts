// A zlib stream (RFC 1950/1951) specialised for PNG scanlines of class-id masks.
//
// Masks are long runs of one value, and rows that repeat the row above. General-purpose deflate spends
// most of its time searching for matches a mask does not need: here only two candidates are tried at
// each position, the previous row (distance = stride) and the previous byte (distance 1), and symbols are
// written with the fixed Huffman codes. On a 12-megapixel mask this is several times faster than zlib
// (native or fflate) while compressing to the same order of size, and it is the same code, hence the same
// bytes, in browsers and Node.

const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385,
  24577,
];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
const MAX_MATCH = 258;
const WINDOW = 32768;

// Fixed Huffman codes, bit-reversed for an LSB-first bit writer.
const LITLEN_CODE = new Uint16Array(288);
const LITLEN_BITS = new Uint8Array(288);
for (let s = 0; s < 288; s++) {
  const [code, bits] = s < 144 ? [0x30 + s, 8] : s < 256 ? [0x190 + s - 144, 9] : s < 280 ? [s - 256, 7] : [0xc0 + s - 280, 8];
  LITLEN_CODE[s] = reverse(code, bits);
  LITLEN_BITS[s] = bits;
}
// Length (3–258) → symbol index into LENGTH_BASE.
const LENGTH_SYMBOL = new Uint8Array(MAX_MATCH + 1);
for (let i = 0; i < LENGTH_BASE.length; i++) {
  const end = i + 1 < LENGTH_BASE.length ? LENGTH_BASE[i + 1]! : MAX_MATCH + 1;
  for (let l = LENGTH_BASE[i]!; l < end; l++) LENGTH_SYMBOL[l] = i;
}
LENGTH_SYMBOL[MAX_MATCH] = 28;

function reverse(code: number, bits: number): number {
  let r = 0;
  for (let i = 0; i < bits; i++) r |= ((code >> i) & 1) << (bits - 1 - i);
  return r;
}

function distanceSymbol(distance: number): number {
  let lo = 0;
  let hi = DIST_BASE.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (DIST_BASE[mid]! <= distance) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

class BitWriter {
  private out: Uint8Array;
  private pos = 0;
  private acc = 0;
  private count = 0;

  constructor(capacity: number) {
    this.out = new Uint8Array(capacity);
  }

  write(value: number, bits: number): void {
    this.acc |= value << this.count;
    this.count += bits;
    while (this.count >= 8) {
      if (this.pos === this.out.length) this.grow();
      this.out[this.pos++] = this.acc & 255;
      this.acc >>>= 8;
      this.count -= 8;
    }
  }

  bytes(): Uint8Array {
    if (this.count > 0) this.write(0, 8 - this.count);
    return this.out.subarray(0, this.pos);
  }

  private grow(): void {
    const bigger = new Uint8Array(this.out.length * 2);
    bigger.set(this.out);
    this.out = bigger;
  }
}

/** zlib-wrapped deflate of `data`, whose rows are `stride` bytes long. */
export function deflateMaskRows(data: Uint8Array, stride: number): Uint8Array {
  const n = data.length;
  const w = new BitWriter(Math.max(1024, n >> 6));
  w.write(0x78, 8);
  w.write(0x01, 8);
  w.write(1, 1); // final block
  w.write(1, 2); // fixed Huffman codes
  const rowDistance = stride <= WINDOW ? stride : 0;
  const rowDistSymbol = rowDistance ? distanceSymbol(rowDistance) : 0;
  const rowDistCode = reverse(rowDistSymbol, 5);
  const rowDistExtraBits = DIST_EXTRA[rowDistSymbol]!;
  const rowDistExtra = rowDistance - DIST_BASE[rowDistSymbol]!;
  let i = 0;
  while (i < n) {
    const limit = Math.min(MAX_MATCH, n - i);
    let length = 0;
    let distance = 0;
    if (rowDistance && i >= rowDistance) {
      while (length < limit && data[i + length] === data[i + length - rowDistance]) length++;
      distance = rowDistance;
    }
    if (length < limit && i >= 1) {
      let run = 0;
      while (run < limit && data[i + run] === data[i + run - 1]) run++;
      if (run > length) {
        length = run;
        distance = 1;
      }
    }
    if (length < 3) {
      const v = data[i]!;
      w.write(LITLEN_CODE[v]!, LITLEN_BITS[v]!);
      i++;
      continue;
    }
    const ls = LENGTH_SYMBOL[length]!;
    w.write(LITLEN_CODE[257 + ls]!, LITLEN_BITS[257 + ls]!);
    if (LENGTH_EXTRA[ls]) w.write(length - LENGTH_BASE[ls]!, LENGTH_EXTRA[ls]);
    if (distance === 1) {
      w.write(0, 5); // distance symbol 0 = distance 1, no extra bits
    } else {
      w.write(rowDistCode, 5);
      if (rowDistExtraBits) w.write(rowDistExtra, rowDistExtraBits);
    }
    i += length;
  }
  w.write(LITLEN_CODE[256]!, LITLEN_BITS[256]!);
  const body = w.bytes();
  const out = new Uint8Array(body.length + 4);
  out.set(body);
  new DataView(out.buffer).setUint32(body.length, adler32(data));
  return out;
}

function adler32(data: Uint8Array): number {
  let a = 1;
  let b = 0;
  const n = data.length;
  for (let i = 0; i < n;) {
    const end = Math.min(i + 5552, n);
    for (; i < end; i++) {
      a += data[i]!;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}
