// BLAKE2b (RFC 7693) with the full parameter block, matching Python's
// `hashlib.blake2b(data, digest_size=n, key=..., salt=..., person=...)`.
// Node's crypto only offers blake2b512; the digest size is part of the parameter block, so a
// truncated 512-bit digest is a different value (the study derives its seeds from 8-byte digests).

interface Blake2bOptions {
  /** Output length in bytes, 1..64 (Python's default is 64). */
  digestSize?: number;
  /** Optional key, up to 64 bytes. */
  key?: Uint8Array | string;
  /** Optional salt, up to 16 bytes (zero padded). */
  salt?: Uint8Array | string;
  /** Optional personalisation, up to 16 bytes (zero padded). */
  person?: Uint8Array | string;
}

const IV = new Uint32Array([
  0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a, 0xade682d1, 0x510e527f, 0x2b3e6c1f,
  0x9b05688c, 0xfb41bd6b, 0x1f83d9ab, 0x137e2179, 0x5be0cd19,
]);

const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
];

function toBytes(x: Uint8Array | string | undefined): Uint8Array {
  if (x === undefined) return new Uint8Array(0);
  return typeof x === 'string' ? new TextEncoder().encode(x) : x;
}

/** 64-bit words are held as (lo, hi) pairs of 32-bit halves in a Uint32Array. */
class State {
  readonly h = new Uint32Array(16);
  private readonly v = new Uint32Array(32);
  private readonly m = new Uint32Array(32);
  private readonly buf = new Uint8Array(128);
  private bufLen = 0;
  private t0 = 0; // byte counter, low 32 bits
  private t1 = 0; // byte counter, high 32 bits

  constructor(
    private readonly outLen: number,
    key: Uint8Array,
    salt: Uint8Array,
    person: Uint8Array,
  ) {
    const param = new Uint8Array(64);
    param[0] = outLen;
    param[1] = key.length;
    param[2] = 1; // fanout
    param[3] = 1; // depth
    param.set(salt, 32);
    param.set(person, 48);
    for (let i = 0; i < 16; i++) this.h[i] = IV[i] ^ readU32(param, i * 4);
    if (key.length > 0) {
      this.update(key);
      this.bufLen = 128; // the key block is a full block, padded with zeros
    }
  }

  update(data: Uint8Array): void {
    for (let i = 0; i < data.length; i++) {
      if (this.bufLen === 128) {
        this.increment(128);
        this.compress(false);
        this.buf.fill(0);
        this.bufLen = 0;
      }
      this.buf[this.bufLen++] = data[i];
    }
  }

  digest(): Uint8Array {
    this.increment(this.bufLen);
    this.buf.fill(0, this.bufLen);
    this.compress(true);
    const out = new Uint8Array(this.outLen);
    for (let i = 0; i < this.outLen; i++) out[i] = this.h[i >> 2] >>> (8 * (i & 3));
    return out;
  }

  private increment(n: number): void {
    const lo = this.t0 + n;
    this.t0 = lo >>> 0;
    if (lo > 0xffffffff) this.t1 = (this.t1 + 1) >>> 0;
  }

  private compress(last: boolean): void {
    const { v, m, h } = this;
    for (let i = 0; i < 16; i++) {
      v[i] = h[i];
      v[i + 16] = IV[i];
    }
    v[24] ^= this.t0;
    v[25] ^= this.t1;
    if (last) {
      v[28] = ~v[28];
      v[29] = ~v[29];
    }
    for (let i = 0; i < 32; i++) m[i] = readU32(this.buf, i * 4);
    for (let r = 0; r < 12; r++) {
      const s = SIGMA[r];
      g(v, m, 0, 8, 16, 24, s[0], s[1]);
      g(v, m, 2, 10, 18, 26, s[2], s[3]);
      g(v, m, 4, 12, 20, 28, s[4], s[5]);
      g(v, m, 6, 14, 22, 30, s[6], s[7]);
      g(v, m, 0, 10, 20, 30, s[8], s[9]);
      g(v, m, 2, 12, 22, 24, s[10], s[11]);
      g(v, m, 4, 14, 16, 26, s[12], s[13]);
      g(v, m, 6, 8, 18, 28, s[14], s[15]);
    }
    for (let i = 0; i < 16; i++) h[i] = h[i] ^ v[i] ^ v[i + 16];
  }
}

function readU32(b: Uint8Array, i: number): number {
  return (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0;
}

/** v[a] += v[b] (64-bit). */
function add64(v: Uint32Array, a: number, b: number): void {
  const lo = v[a] + v[b];
  let hi = v[a + 1] + v[b + 1];
  if (lo >= 0x100000000) hi++;
  v[a] = lo;
  v[a + 1] = hi;
}

/** v[a] += (b0, b1) (64-bit). */
function add64c(v: Uint32Array, a: number, b0: number, b1: number): void {
  let lo = v[a] + b0;
  if (b0 < 0) lo += 0x100000000;
  let hi = v[a + 1] + b1;
  if (lo >= 0x100000000) hi++;
  v[a] = lo;
  v[a + 1] = hi;
}

function g(v: Uint32Array, m: Uint32Array, a: number, b: number, c: number, d: number, ix: number, iy: number): void {
  const x0 = m[2 * ix];
  const x1 = m[2 * ix + 1];
  const y0 = m[2 * iy];
  const y1 = m[2 * iy + 1];

  add64(v, a, b);
  add64c(v, a, x0, x1);
  // v[d] = rotr64(v[d] ^ v[a], 32)
  let xor0 = v[d] ^ v[a];
  let xor1 = v[d + 1] ^ v[a + 1];
  v[d] = xor1;
  v[d + 1] = xor0;

  add64(v, c, d);
  // v[b] = rotr64(v[b] ^ v[c], 24)
  xor0 = v[b] ^ v[c];
  xor1 = v[b + 1] ^ v[c + 1];
  v[b] = (xor0 >>> 24) ^ (xor1 << 8);
  v[b + 1] = (xor1 >>> 24) ^ (xor0 << 8);

  add64(v, a, b);
  add64c(v, a, y0, y1);
  // v[d] = rotr64(v[d] ^ v[a], 16)
  xor0 = v[d] ^ v[a];
  xor1 = v[d + 1] ^ v[a + 1];
  v[d] = (xor0 >>> 16) ^ (xor1 << 16);
  v[d + 1] = (xor1 >>> 16) ^ (xor0 << 16);

  add64(v, c, d);
  // v[b] = rotr64(v[b] ^ v[c], 63)
  xor0 = v[b] ^ v[c];
  xor1 = v[b + 1] ^ v[c + 1];
  v[b] = (xor1 >>> 31) ^ (xor0 << 1);
  v[b + 1] = (xor0 >>> 31) ^ (xor1 << 1);
}

/** BLAKE2b digest of `data` (strings are UTF-8 encoded, as Python's `str.encode()`). */
export function blake2b(data: Uint8Array | string, options: Blake2bOptions = {}): Uint8Array {
  const digestSize = options.digestSize ?? 64;
  if (!Number.isInteger(digestSize) || digestSize < 1 || digestSize > 64) {
    throw new RangeError(`digest_size must be between 1 and 64 bytes (got ${digestSize})`);
  }
  const key = toBytes(options.key);
  const salt = toBytes(options.salt);
  const person = toBytes(options.person);
  if (key.length > 64) throw new RangeError('maximum key length is 64 bytes');
  if (salt.length > 16) throw new RangeError('maximum salt length is 16 bytes');
  if (person.length > 16) throw new RangeError('maximum person length is 16 bytes');
  const state = new State(digestSize, key, salt, person);
  state.update(toBytes(data));
  return state.digest();
}

/** `hashlib.blake2b(...).hexdigest()`. */
export function blake2bHex(data: Uint8Array | string, options: Blake2bOptions = {}): string {
  return Buffer.from(blake2b(data, options)).toString('hex');
}
