// `store copy`: runs from one store to another, chains verified, nothing written if any run is
// refused. The destination is read through a read-only connection for the checks and opened for
// writing only when the first run is written, so a refused copy creates nothing (no file, no schema).
import { StoreError } from '../core/errors.ts';
import { copyRuns, type CopiedRun, type CopyDestination, type CopyOptions } from '../store/copy.ts';
import { openStore, redactLocation, type RunStore } from '../store/store.ts';
import { existsSync, statSync } from 'node:fs';

export interface StoreCopyOptions {
  from: string;
  to: string;
  runIds?: readonly string[];
  /** Heads kept from earlier outputs: each must be an event of a run copied (a shortened source is refused). */
  expectHeads?: readonly string[];
}

/** The destination, opened as late as possible: read-only for the checks (none yet: no runs), for writing at the first write. */
function lateDestination(location: string): CopyDestination & { close(): Promise<void> } {
  let reader: Promise<RunStore | null> | null = null;
  let writer: Promise<RunStore> | null = null;
  const read = () =>
    (reader ??= (async () => {
      // A new (or empty) file is no store yet: it holds no runs, and stays as it is unless something is written.
      const path = location.startsWith('sqlite:') ? location.slice('sqlite:'.length) : location;
      if (!/^postgres(ql)?:\/\//i.test(location) && (!existsSync(path) || (statSync(path).isFile() && statSync(path).size === 0)))
        return null;
      try {
        return await openStore(location, { readonly: true });
      } catch (e) {
        if (e instanceof StoreError && e.reason === 'missing') return null;
        throw e;
      }
    })());
  return {
    location: redactLocation(location),
    async rawEventRows(runId) {
      const r = await read();
      return r ? r.rawEventRows(runId) : [];
    },
    async appendRows(runId, rows) {
      writer ??= openStore(location);
      return (await writer).appendRows(runId, rows);
    },
    async close() {
      const [r, w] = await Promise.allSettled([reader, writer]);
      if (r.status === 'fulfilled' && r.value) await r.value.close();
      if (w.status === 'fulfilled' && w.value) await w.value.close();
    },
  };
}

export async function copyStore(o: StoreCopyOptions, hooks: Pick<CopyOptions, 'onChecked' | 'onRun'> = {}): Promise<CopiedRun[]> {
  const from = await openStore(o.from, { readonly: true });
  try {
    const to = lateDestination(o.to);
    try {
      return await copyRuns(from, to, { runIds: o.runIds, expectHeads: o.expectHeads, ...hooks });
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}
