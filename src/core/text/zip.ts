// A small ZIP reader (central directory + stored/deflated entries), enough to extract NLTK data
// packages. Node has zlib's inflateRaw but no zip reader; ZIP64 and encryption are refused.
import { zlib } from '../util/lazy-builtin.ts';
import { InputError } from '../errors.ts';

interface ZipEntry {
  name: string;
  method: number;
  crc32: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** Lists the entries of a ZIP archive from its central directory. */
export function zipEntries(zip: Buffer, label = 'archive'): ZipEntry[] {
  const bad = (why: string): InputError => new InputError(`not a readable ZIP archive (${why})`, { file: label });
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw bad('no end-of-central-directory record');
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  if (p === 0xffffffff || count === 0xffff) throw bad('ZIP64 is not supported');
  const entries: ZipEntry[] = [];
  for (let k = 0; k < count; k++) {
    if (p + 46 > zip.length || zip.readUInt32LE(p) !== CENTRAL) throw bad(`bad central directory entry ${k}`);
    const flags = zip.readUInt16LE(p + 8);
    if (flags & 1) throw bad('encrypted entries are not supported');
    const nameLen = zip.readUInt16LE(p + 28);
    const entry: ZipEntry = {
      method: zip.readUInt16LE(p + 10),
      crc32: zip.readUInt32LE(p + 16),
      compressedSize: zip.readUInt32LE(p + 20),
      size: zip.readUInt32LE(p + 24),
      name: zip.toString(flags & 0x800 ? 'utf8' : 'latin1', p + 46, p + 46 + nameLen),
      localHeaderOffset: zip.readUInt32LE(p + 42),
    };
    entries.push(entry);
    p += 46 + nameLen + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32);
  }
  return entries;
}

/** The uncompressed bytes of one entry, checked against its recorded size (and CRC-32 where zlib has it). */
export function zipRead(zip: Buffer, entry: ZipEntry, label = 'archive'): Buffer {
  const p = entry.localHeaderOffset;
  if (p + 30 > zip.length || zip.readUInt32LE(p) !== LOCAL) throw new InputError('bad local header', { file: label, field: entry.name });
  const start = p + 30 + zip.readUInt16LE(p + 26) + zip.readUInt16LE(p + 28);
  const raw = zip.subarray(start, start + entry.compressedSize);
  let data: Buffer;
  if (entry.method === 0) data = Buffer.from(raw);
  else if (entry.method === 8) data = zlib().inflateRawSync(raw);
  else throw new InputError(`compression method ${entry.method} is not supported`, { file: label, field: entry.name });
  if (data.length !== entry.size) throw new InputError(`size ${data.length} ≠ recorded ${entry.size}`, { file: label, field: entry.name });
  const crc32 = (zlib() as unknown as { crc32?: (b: Buffer) => number }).crc32;
  if (crc32 && crc32(data) >>> 0 !== entry.crc32) throw new InputError('CRC-32 mismatch', { file: label, field: entry.name });
  return data;
}
