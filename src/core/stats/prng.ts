// A small, fast, seeded PRNG for the bootstrap: xoshiro128** (Blackman & Vigna), 32-bit state words,
// so every step is plain Int32 arithmetic in V8. NumPy's PCG64 streams cannot be reproduced bit for bit
// without porting PCG64 *and* NumPy's multinomial sampler; we do not try. What we keep is the
// distribution: a multinomial(n, 1/n) weight vector is exactly n uniform draws with replacement.
import { createHash } from 'node:crypto';

export const PRNG_NAME = 'xoshiro128** (state = first 16 bytes of SHA-256 of the stream key)';

export class Xoshiro128 {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(state: [number, number, number, number]) {
    [this.a, this.b, this.c, this.d] = state.map((x) => x | 0) as [number, number, number, number];
    if ((this.a | this.b | this.c | this.d) === 0) this.d = 1; // the all-zero state is a fixed point
  }

  /** A stream whose state is derived from a key: the same key always gives the same numbers. */
  static fromKey(key: string): Xoshiro128 {
    const h = createHash('sha256').update(key, 'utf8').digest();
    return new Xoshiro128([h.readInt32LE(0), h.readInt32LE(4), h.readInt32LE(8), h.readInt32LE(12)]);
  }

  /** Next 32-bit unsigned integer. */
  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9);
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result >>> 0;
  }

  /** Uniform integer in [0, n), unbiased (Lemire's multiply-and-reject), for 1 ≤ n < 2^21. */
  nextBelow(n: number): number {
    // x·n < 2^53, so the product is exact in a double.
    let m = this.nextUint32() * n;
    let low = m % 4294967296;
    if (low < n) {
      const threshold = (4294967296 - n) % n;
      while (low < threshold) {
        m = this.nextUint32() * n;
        low = m % 4294967296;
      }
    }
    return Math.floor(m / 4294967296);
  }

  /** Uniform double in [0, 1) with 53 random bits. */
  nextDouble(): number {
    const hi = this.nextUint32() >>> 5;
    const lo = this.nextUint32() >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
