// `store copy`: runs from one store to another, chains verified, nothing written if any run is refused.
import { copyRuns, type CopiedRun, type CopyOptions } from '../store/copy.ts';
import { openStore } from '../store/store.ts';

export interface StoreCopyOptions {
  from: string;
  to: string;
  runIds?: readonly string[];
}

export async function copyStore(o: StoreCopyOptions, hooks: Pick<CopyOptions, 'onChecked' | 'onRun'> = {}): Promise<CopiedRun[]> {
  const from = await openStore(o.from, { readonly: true });
  try {
    const to = await openStore(o.to);
    try {
      return await copyRuns(from, to, { runIds: o.runIds, ...hooks });
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}
