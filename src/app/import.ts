// `import-trajectories`: trajectories produced elsewhere (JSON Lines, or COLLIE's released
// multi-round log) stored as one run (studies/revision/import.ts).
import { basename } from 'node:path';
import { UserError } from '../core/errors.ts';
import { sha256File } from '../core/util/hash.ts';
import { readJsonlLines } from '../core/util/jsonl.ts';
import { checkNewRunId } from '../store/run-id.ts';
import { sharedDataFile } from '../core/util/shared-data.ts';
import { getFamily } from '../core/verify/registry.ts';
import { openStore } from '../store/store.ts';
import { convertCollieLog, type CollieLogConversion } from '../studies/revision/collie-log.ts';
import { importTrajectories, parseImportLines, type ImportSummary } from '../studies/revision/import.ts';

export type ImportSource = 'jsonl' | 'collie-log';

export interface ImportOptions {
  file: string;
  store: string;
  /** Default: the file name without its extension. */
  runId?: string;
  /** Drop drafts beyond this budget. */
  budget?: number;
  from?: ImportSource;
  /** collie_all.jsonl, to map a COLLIE log's prompts to instances (default: ../shared/data). */
  collie?: string;
  /** Controller name for a COLLIE log (default: from its file name). */
  controller?: string;
  /** Called with the COLLIE log conversion's counts before anything is stored. */
  onConverted?: (c: CollieLogConversion, collie: string) => void;
}

export interface ImportOutcome extends ImportSummary {
  runId: string;
}

export async function importRun(o: ImportOptions): Promise<ImportOutcome> {
  const { file } = o;
  const runId =
    o.runId ??
    basename(file)
      .replace(/\.jsonl?$/i, '')
      .replace(/[^A-Za-z0-9._-]+/g, '-');
  let parsed;
  let format: string;
  if ((o.from ?? 'jsonl') === 'jsonl') {
    const items = [];
    try {
      for await (const item of readJsonlLines(file)) items.push(item);
    } catch (e) {
      throw new UserError(`${file}: cannot read (${(e as Error).message})`);
    }
    parsed = parseImportLines(items, file, getFamily);
    format = 'import-jsonl';
  } else {
    const collie = o.collie ?? sharedDataFile('collie', 'collie_all.jsonl');
    if (!collie)
      throw new UserError(
        '--input-format collie-log needs --collie <collie_all.jsonl> to map prompts to COLLIE instances (not found in ../shared/data/collie either)',
      );
    const conv = await convertCollieLog(file, collie, o.controller);
    o.onConverted?.(conv, collie);
    parsed = parseImportLines(
      conv.lines.map((value, i) => ({ line: i + 1, value })),
      `${file} (converted)`,
      getFamily,
    );
    format = 'collie-log';
  }
  checkNewRunId(runId); // before the store is opened (and created)
  const store = await openStore(o.store);
  try {
    const summary = await importTrajectories(store, parsed, {
      runId,
      file,
      fileSha256: await sha256File(file),
      format,
      budget: o.budget,
      resolveFamily: getFamily,
    });
    return { ...summary, runId };
  } finally {
    await store.close();
  }
}
