// A damaged write-ahead log is found before SQLite reads it (docs/store.md, "What the store cannot
// prevent"). SQLite replays a WAL frame by frame while each frame's checksum continues the chain
// from the one before and carries the WAL's current salts; at the first frame that does not, it
// stops, silently: every commit from there on is gone (a byte flipped in a killed run's WAL dropped
// 396 events to 145, and the audit then passed). A crash leaves nothing valid after the end of the
// chain (only a partly written last frame, or frames of an older WAL generation with other salts),
// so a frame with the current salts whose checksum continues from the frame before it, found after
// the chain broke, means the WAL was damaged. Truncation at a frame boundary leaves no such trace:
// `audit --expect-head` is what finds that.
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';

const HEADER = 32;
const FRAME_HEADER = 24;

/** SQLite's WAL checksum over `data` (a multiple of 8 bytes), continuing from (s0, s1). */
function checksum(data: Buffer, bigEndian: boolean, s0: number, s1: number): [number, number] {
  for (let i = 0; i < data.length; i += 8) {
    const x0 = bigEndian ? data.readUInt32BE(i) : data.readUInt32LE(i);
    const x1 = bigEndian ? data.readUInt32BE(i + 4) : data.readUInt32LE(i + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  return [s0, s1];
}

/** What is wrong with a store's WAL, or null when SQLite will read all that was committed to it. */
export function walDamage(dbPath: string): string | null {
  const path = `${dbPath}-wal`;
  if (!existsSync(path)) return null;
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null; // unreadable here: SQLite will say so
  }
  try {
    const size = fstatSync(fd).size;
    if (size < HEADER) return null;
    const header = Buffer.alloc(HEADER);
    readSync(fd, header, 0, HEADER, 0);
    const magic = header.readUInt32BE(0);
    if (magic !== 0x377f0682 && magic !== 0x377f0683) return null; // not a WAL SQLite would read either
    const bigEndian = (magic & 1) === 1;
    const pageSize = header.readUInt32BE(8);
    if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return null;
    const salt1 = header.readUInt32BE(16);
    const salt2 = header.readUInt32BE(20);
    let [s0, s1] = checksum(header.subarray(0, 24), bigEndian, 0, 0);
    if (s0 !== header.readUInt32BE(24) || s1 !== header.readUInt32BE(28)) return null; // an invalid header: SQLite ignores the WAL, as it was never used
    const frameSize = FRAME_HEADER + pageSize;
    const frames = Math.floor((size - HEADER) / frameSize);
    const frame = Buffer.alloc(frameSize);
    let broken = -1;
    // The valid prefix: frames whose salts match and whose checksums continue the chain.
    for (let k = 0; k < frames; k++) {
      readSync(fd, frame, 0, frameSize, HEADER + k * frameSize);
      if (frame.readUInt32BE(8) !== salt1 || frame.readUInt32BE(12) !== salt2) {
        broken = k;
        break;
      }
      const head = frame.subarray(0, 8);
      [s0, s1] = checksum(frame.subarray(FRAME_HEADER), bigEndian, ...checksum(head, bigEndian, s0, s1));
      if (s0 !== frame.readUInt32BE(16) || s1 !== frame.readUInt32BE(20)) {
        broken = k;
        break;
      }
    }
    if (broken < 0) return null;
    // Past the break: does a later frame with the current salts continue from the one before it?
    const prev = Buffer.alloc(frameSize);
    for (let k = broken + 1; k < frames; k++) {
      readSync(fd, prev, 0, frameSize, HEADER + (k - 1) * frameSize);
      readSync(fd, frame, 0, frameSize, HEADER + k * frameSize);
      if (frame.readUInt32BE(8) !== salt1 || frame.readUInt32BE(12) !== salt2) continue;
      const from: [number, number] = [prev.readUInt32BE(16), prev.readUInt32BE(20)];
      const [c0, c1] = checksum(frame.subarray(FRAME_HEADER), bigEndian, ...checksum(frame.subarray(0, 8), bigEndian, ...from));
      if (c0 === frame.readUInt32BE(16) && c1 === frame.readUInt32BE(20)) {
        // A writer that restarted the WAL while it was read (new salts from frame 1) is no damage.
        const again = Buffer.alloc(HEADER);
        readSync(fd, again, 0, HEADER, 0);
        if (!again.equals(header)) return null;
        return `${path} is damaged at frame ${broken + 1} of ${frames}: SQLite would stop reading there and silently drop the commits in frames ${broken + 1}–${frames}`;
      }
    }
    return null;
  } finally {
    closeSync(fd);
  }
}
