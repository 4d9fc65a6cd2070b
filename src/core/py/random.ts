// CPython's `random.Random`, reproduced draw for draw: MT19937 seeded through init_by_array, and
// the integer methods built on getrandbits rejection sampling (`_randbelow_with_getrandbits`).
// Every world, task and subsample of the feedback-inversion study is selected with it, so a single
// differing draw changes which contact, file or item is chosen.
import { createHash } from 'node:crypto';

const N = 624;
const M = 397;

/** Seeds accepted the way CPython accepts them (version 2 seeding for str and bytes). */
type PySeed = number | bigint | string | Uint8Array;

export class PyRandom {
  private readonly mt = new Uint32Array(N);
  private mti = N + 1;

  /** Seeded as `random.Random(seed)`; `null` leaves the state for copyFrom to fill. */
  constructor(seed: PySeed | null = 0) {
    if (seed !== null) this.seed(seed);
  }

  /** `setstate(other.getstate())`: this generator continues exactly as `other` would (seeding costs more than copying). */
  copyFrom(other: PyRandom): this {
    this.mt.set(other.mt);
    this.mti = other.mti;
    return this;
  }

  /** `random.seed(a)`: ints by absolute value; str/bytes as int(bytes + sha512(bytes)), big-endian. */
  seed(a: PySeed): void {
    let n: bigint;
    if (typeof a === 'string' || a instanceof Uint8Array) {
      const bytes = typeof a === 'string' ? Buffer.from(a, 'utf8') : Buffer.from(a);
      const digest = createHash('sha512').update(bytes).digest();
      const all = Buffer.concat([bytes, digest]);
      n = BigInt('0x' + all.toString('hex'));
    } else if (typeof a === 'bigint') {
      n = a;
    } else {
      if (!Number.isSafeInteger(a)) {
        throw new TypeError(`PyRandom seeds must be integers (got ${a}); float seeds hash differently in CPython`);
      }
      n = BigInt(a);
    }
    if (n < 0n) n = -n;
    const key: number[] = [];
    while (n > 0n) {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    }
    if (key.length === 0) key.push(0);
    this.initByArray(key);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.mti = N;
  }

  private initByArray(key: readonly number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  /** One tempered 32-bit output of MT19937 (`genrand_uint32`). */
  genrandUint32(): number {
    const mt = this.mt;
    if (this.mti >= N) {
      let kk = 0;
      for (; kk < N - M; kk++) {
        const y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7fffffff);
        mt[kk] = mt[kk + M] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      for (; kk < N - 1; kk++) {
        const y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7fffffff);
        mt[kk] = mt[kk + (M - N)] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      const y = (mt[N - 1] & 0x80000000) | (mt[0] & 0x7fffffff);
      mt[N - 1] = mt[M - 1] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      this.mti = 0;
    }
    let y = mt[this.mti++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `random()`: 53-bit float in [0, 1). */
  random(): number {
    const a = this.genrandUint32() >>> 5;
    const b = this.genrandUint32() >>> 6;
    return (a * 67108864 + b) * (1 / 9007199254740992);
  }

  /** `getrandbits(k)` as a bigint (words filled least significant first, like CPython). */
  getrandbits(k: number): bigint {
    if (!Number.isInteger(k) || k < 0) throw new RangeError('number of bits must be non-negative');
    if (k === 0) return 0n;
    if (k <= 32) return BigInt(this.genrandUint32() >>> (32 - k));
    let result = 0n;
    let shift = 0n;
    for (let left = k; left > 0; left -= 32) {
      let r = this.genrandUint32();
      if (left < 32) r >>>= 32 - left;
      result |= BigInt(r) << shift;
      shift += 32n;
    }
    return result;
  }

  /** `_randbelow(n)` for 0 < n: rejection sampling on n.bit_length() bits. */
  randbelow(n: number | bigint): number {
    if (typeof n === 'bigint' || n > 0xffffffff) {
      const big = BigInt(n);
      if (big <= 0n) throw new RangeError('randbelow needs a positive bound');
      const k = big.toString(2).length;
      let r = this.getrandbits(k);
      while (r >= big) r = this.getrandbits(k);
      return Number(r);
    }
    if (!Number.isInteger(n) || n <= 0) throw new RangeError('randbelow needs a positive integer bound');
    const k = 32 - Math.clz32(n);
    let r = this.genrandUint32() >>> (32 - k);
    while (r >= n) r = this.genrandUint32() >>> (32 - k);
    return r;
  }

  /** `randrange(start, stop, step)` (or `randrange(stop)` with one argument). */
  randrange(start: number, stop?: number, step = 1): number {
    for (const v of [start, stop ?? 0, step]) {
      if (!Number.isSafeInteger(v)) throw new TypeError(`randrange() arguments must be integers, got ${v}`);
    }
    if (stop === undefined) {
      if (start > 0) return this.randbelow(start);
      throw new RangeError('empty range for randrange()');
    }
    const width = stop - start;
    if (step === 1) {
      if (width > 0) return start + this.randbelow(width);
      throw new RangeError(`empty range in randrange(${start}, ${stop})`);
    }
    let n: number;
    if (step > 0) n = Math.floor((width + step - 1) / step);
    else if (step < 0) n = Math.floor((width + step + 1) / step);
    else throw new RangeError('zero step for randrange()');
    if (n <= 0) throw new RangeError(`empty range in randrange(${start}, ${stop}, ${step})`);
    return start + step * this.randbelow(n);
  }

  /** `randint(a, b)`: both ends inclusive. */
  randint(a: number, b: number): number {
    return this.randrange(a, b + 1);
  }

  /** `choice(seq)`. */
  choice<T>(seq: readonly T[]): T {
    if (seq.length === 0) throw new RangeError('Cannot choose from an empty sequence');
    return seq[this.randbelow(seq.length)];
  }

  /** `shuffle(x)` in place (Fisher-Yates from the end, as CPython). */
  shuffle<T>(x: T[]): void {
    for (let i = x.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      const t = x[i];
      x[i] = x[j];
      x[j] = t;
    }
  }

  /** `sample(population, k)`: the pool algorithm for small populations, the set algorithm otherwise. */
  sample<T>(population: readonly T[], k: number): T[] {
    const n = population.length;
    if (!Number.isInteger(k) || k < 0 || k > n) throw new RangeError('Sample larger than population or is negative');
    const result: T[] = new Array<T>(k);
    let setsize = 21;
    if (k > 5) setsize += 4 ** Math.ceil(Math.log(k * 3) / Math.log(4));
    if (n <= setsize) {
      const pool = population.slice();
      for (let i = 0; i < k; i++) {
        const j = this.randbelow(n - i);
        result[i] = pool[j];
        pool[j] = pool[n - i - 1];
      }
    } else {
      const selected = new Set<number>();
      for (let i = 0; i < k; i++) {
        let j = this.randbelow(n);
        while (selected.has(j)) j = this.randbelow(n);
        selected.add(j);
        result[i] = population[j];
      }
    }
    return result;
  }

  /** `uniform(a, b)`. */
  uniform(a: number, b: number): number {
    return a + (b - a) * this.random();
  }
}
