// Randomness for simulated controllers, derived only from hashes of their inputs (seed, messages,
// purpose): never from call order or wall time, so a sim's output is a pure function of
// (profile, parameters, messages) in every process.
import { sha256Hex } from '../../core/util/hash.ts';

/** sfc32 seeded from 128 bits of SHA-256(key): small, fast and good enough for simulations. */
export class HashRng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(key: string) {
    const h = sha256Hex(key);
    this.a = parseInt(h.slice(0, 8), 16) | 0;
    this.b = parseInt(h.slice(8, 16), 16) | 0;
    this.c = parseInt(h.slice(16, 24), 16) | 0;
    this.d = parseInt(h.slice(24, 32), 16) | 0;
    for (let i = 0; i < 12; i++) this.nextU32();
  }

  nextU32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextU32() / 0x1_0000_0000;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  chance(p: number): boolean {
    return p >= 1 ? (this.next(), true) : this.next() < p;
  }

  /** Rounds x down or up at random so that the expected value is x. */
  stochasticRound(x: number): number {
    const f = Math.floor(x);
    return this.next() < x - f ? f + 1 : f;
  }
}

/** A named, independent stream under a key. */
export function stream(key: string, purpose: string): HashRng {
  return new HashRng(`${key}\u001f${purpose}`);
}
