// `store copy`: runs from one store to another, chains verified, nothing written if any run is refused.
import { copyRuns, type CopiedRun } from '../store/copy.ts';
import { openStore } from '../store/store.ts';

export interface StoreCopyOptions {
  from: string;
  to: string;
  runIds?: readonly string[];
}

export async function copyStore(
  o: StoreCopyOptions,
  hooks: { onRun?(run: CopiedRun, index: number, total: number): void } = {},
): Promise<CopiedRun[]> {
  const from = await openStore(o.from, { readonly: true });
  try {
    const to = await openStore(o.to);
    try {
      return await copyRuns(from, to, { runIds: o.runIds, onRun: hooks.onRun });
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}
