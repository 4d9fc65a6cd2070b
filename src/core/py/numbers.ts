// Python's float rounding and `format(v, "g")`, computed on the exact binary value of the double
// (CPython goes through dtoa, which rounds the exact value half-even). `Math.round(x * 1e4) / 1e4`
// differs on values such as 1.00005 and on exact ties; these are exact.

interface ExactDecimal {
  neg: boolean;
  /** |x| = digits × 10^exp10, exactly. */
  digits: bigint;
  exp10: number;
}

/** The exact decimal value of a finite double. */
function exactDecimal(x: number): ExactDecimal {
  if (!Number.isFinite(x)) throw new RangeError(`not a finite number: ${x}`);
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const neg = hi >>> 31 === 1;
  const biased = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp2: number;
  if (biased === 0) {
    exp2 = -1074; // subnormal
  } else {
    mant |= 1n << 52n;
    exp2 = biased - 1075;
  }
  if (mant === 0n) return { neg, digits: 0n, exp10: 0 };
  if (exp2 >= 0) return { neg, digits: mant << BigInt(exp2), exp10: 0 };
  // m·2^-k = m·5^k / 10^k
  return { neg, digits: mant * 5n ** BigInt(-exp2), exp10: exp2 };
}

/** Divide by 10^drop rounding half to even. */
function roundHalfEven(n: bigint, drop: number): bigint {
  if (drop <= 0) return n * 10n ** BigInt(-drop);
  const d = 10n ** BigInt(drop);
  let q = n / d;
  const r2 = (n % d) * 2n;
  if (r2 > d || (r2 === d && q % 2n === 1n)) q += 1n;
  return q;
}

const NDIGITS_MAX = Math.trunc((53 - -1021) * 0.30103);
const NDIGITS_MIN = -Math.trunc((1024 + 1) * 0.30103);

/** Python `round(x, ndigits)` for a float x (returns a float; the sign of zero is kept). */
export function pyRound(x: number, ndigits: number): number {
  if (!Number.isInteger(ndigits)) throw new TypeError('ndigits must be an integer');
  if (!Number.isFinite(x) || x === 0) return x;
  if (ndigits > NDIGITS_MAX) return x;
  if (ndigits < NDIGITS_MIN) return 0 * x;
  const { neg, digits, exp10 } = exactDecimal(x);
  // Keep the digits down to 10^-ndigits.
  const q = roundHalfEven(digits, -(exp10 + ndigits));
  const rounded = Number(`${neg ? '-' : ''}${q}e${-ndigits}`);
  if (!Number.isFinite(rounded)) throw new RangeError('rounded value too large to represent');
  return rounded;
}

/** Python `format(v, "g")` / `"{:g}".format(v)` (precision 6 unless given). Ints format as floats. */
export function pyFormatG(value: number | bigint, precision = 6): string {
  const x = typeof value === 'bigint' ? Number(value) : value;
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  const p = precision === 0 ? 1 : precision;
  const { neg, digits, exp10 } = exactDecimal(x);
  const sign = neg ? '-' : '';
  if (digits === 0n) return sign + '0';
  const len = digits.toString().length;
  let drop = len - p;
  let q = drop > 0 ? roundHalfEven(digits, drop) : digits;
  if (drop < 0) drop = 0;
  if (q.toString().length > p) {
    // Rounding carried into a new digit (e.g. 999999.5 → 1000000).
    q /= 10n;
    drop += 1;
  }
  const qs = q.toString();
  const sciExp = qs.length - 1 + exp10 + drop;
  const sig = qs.replace(/0+$/, '') || '0';
  if (sciExp >= -4 && sciExp < p) {
    if (sciExp >= 0) {
      const intPart = sig.length > sciExp + 1 ? sig.slice(0, sciExp + 1) : sig + '0'.repeat(sciExp + 1 - sig.length);
      const frac = sig.slice(sciExp + 1);
      return sign + intPart + (frac ? '.' + frac : '');
    }
    return sign + '0.' + '0'.repeat(-sciExp - 1) + sig;
  }
  const mant = sig.length > 1 ? sig[0] + '.' + sig.slice(1) : sig;
  const e = Math.abs(sciExp);
  return sign + mant + 'e' + (sciExp < 0 ? '-' : '+') + (e < 10 ? '0' + e : String(e));
}
