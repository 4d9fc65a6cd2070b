// A minimal GGUF v3 writer (little-endian, DataView): metadata key/values, tensor infos, then
// F32 tensor data, each tensor aligned to `general.alignment` (32). Enough to write a runnable
// llama-architecture model for tests; it does not quantize and does not read GGUF.

/** One metadata value with its GGUF type. Arrays hold a single element type. */
export type GgufValue =
  | { type: 'u32'; value: number }
  | { type: 'i32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'array'; itemType: 'string'; value: string[] }
  | { type: 'array'; itemType: 'f32'; value: number[] }
  | { type: 'array'; itemType: 'i32'; value: number[] };

export interface GgufTensor {
  name: string;
  /** Dimensions as GGUF stores them: ne[0] (the fastest-varying, row length) first. */
  dims: number[];
  data: Float32Array;
}

const GGUF_ALIGNMENT = 32;

// GGUF metadata value type codes (gguf spec).
const T_UINT32 = 4;
const T_INT32 = 5;
const T_FLOAT32 = 6;
const T_BOOL = 7;
const T_STRING = 8;
const T_ARRAY = 9;
// ggml tensor type code for F32.
const GGML_TYPE_F32 = 0;

const utf8 = new TextEncoder();

/** A growable little-endian byte buffer. */
class ByteSink {
  private buf = new Uint8Array(1 << 16);
  private view = new DataView(this.buf.buffer);
  length = 0;

  private reserve(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u32(v: number): void {
    this.reserve(4);
    this.view.setUint32(this.length, v, true);
    this.length += 4;
  }
  i32(v: number): void {
    this.reserve(4);
    this.view.setInt32(this.length, v, true);
    this.length += 4;
  }
  u64(v: number): void {
    this.reserve(8);
    this.view.setBigUint64(this.length, BigInt(v), true);
    this.length += 8;
  }
  f32(v: number): void {
    this.reserve(4);
    this.view.setFloat32(this.length, v, true);
    this.length += 4;
  }
  u8(v: number): void {
    this.reserve(1);
    this.view.setUint8(this.length, v);
    this.length += 1;
  }
  bytes(b: Uint8Array): void {
    this.reserve(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }
  str(s: string): void {
    const b = utf8.encode(s);
    this.u64(b.length);
    this.bytes(b);
  }
  padTo(alignment: number): void {
    while (this.length % alignment !== 0) this.u8(0);
  }
  result(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

function writeValue(out: ByteSink, v: GgufValue): void {
  switch (v.type) {
    case 'u32':
      out.u32(T_UINT32);
      out.u32(v.value);
      return;
    case 'i32':
      out.u32(T_INT32);
      out.i32(v.value);
      return;
    case 'f32':
      out.u32(T_FLOAT32);
      out.f32(v.value);
      return;
    case 'bool':
      out.u32(T_BOOL);
      out.u8(v.value ? 1 : 0);
      return;
    case 'string':
      out.u32(T_STRING);
      out.str(v.value);
      return;
    case 'array': {
      out.u32(T_ARRAY);
      if (v.itemType === 'string') {
        out.u32(T_STRING);
        out.u64(v.value.length);
        for (const s of v.value) out.str(s);
      } else if (v.itemType === 'f32') {
        out.u32(T_FLOAT32);
        out.u64(v.value.length);
        for (const x of v.value) out.f32(x);
      } else {
        out.u32(T_INT32);
        out.u64(v.value.length);
        for (const x of v.value) out.i32(x);
      }
      return;
    }
  }
}

/** Serializes a complete GGUF v3 file. Metadata keys are written in the given order. */
export function serializeGguf(metadata: Array<[string, GgufValue]>, tensors: GgufTensor[]): Uint8Array {
  const out = new ByteSink();
  out.bytes(utf8.encode('GGUF'));
  out.u32(3); // version
  out.u64(tensors.length);
  out.u64(metadata.length);
  for (const [key, value] of metadata) {
    out.str(key);
    writeValue(out, value);
  }
  // Tensor infos: offsets are relative to the start of the (aligned) data section.
  let offset = 0;
  const offsets: number[] = [];
  for (const t of tensors) {
    const elements = t.dims.reduce((a, b) => a * b, 1);
    if (elements !== t.data.length)
      throw new Error(`tensor ${t.name}: dims ${t.dims.join('x')} need ${elements} values, got ${t.data.length}`);
    offsets.push(offset);
    offset += elements * 4;
    offset = Math.ceil(offset / GGUF_ALIGNMENT) * GGUF_ALIGNMENT;
  }
  tensors.forEach((t, i) => {
    out.str(t.name);
    out.u32(t.dims.length);
    for (const d of t.dims) out.u64(d);
    out.u32(GGML_TYPE_F32);
    out.u64(offsets[i]);
  });
  out.padTo(GGUF_ALIGNMENT);
  const dataStart = out.length;
  tensors.forEach((t, i) => {
    while (out.length < dataStart + offsets[i]) out.u8(0);
    const bytes = new Uint8Array(t.data.length * 4);
    const dv = new DataView(bytes.buffer);
    for (let j = 0; j < t.data.length; j++) dv.setFloat32(j * 4, t.data[j], true);
    out.bytes(bytes);
  });
  out.padTo(GGUF_ALIGNMENT);
  return out.result();
}
