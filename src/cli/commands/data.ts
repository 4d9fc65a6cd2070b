// `revloop data`: reference data the library needs at run time. `data fetch punkt` installs NLTK's
// English Punkt parameters; `data where punkt` shows which copy the tokenizers would use.
import type { Command } from 'commander';
import { UserError } from '../../core/errors.ts';

export function register(program: Command): void {
  const data = program.command('data').description('fetch and locate reference data (NLTK Punkt parameters)');

  data
    .command('fetch')
    .description('download a data package with a pinned SHA-256 and install it under the user data dir')
    .argument('<package>', 'what to fetch: punkt (NLTK punkt_tab, English)')
    .option('--dest <dir>', 'data folder (default: $REVLOOP_DATA_DIR or ~/.revloop/data)')
    .option(
      '--url <url>',
      'download from this URL instead of NLTK’s official location, or install a punkt_tab.zip you already have (a path)',
    )
    .option('--sha256 <hex>', 'expected SHA-256 of the archive, for a release other than the pinned one')
    .action(async (pkg: string, opts: { dest?: string; url?: string; sha256?: string }) => {
      if (pkg !== 'punkt') throw new UserError(`unknown data package ${JSON.stringify(pkg)}; available: punkt`);
      const { fetchPunkt, PUNKT_TAB_URL } = await import('../../core/text/punkt-fetch.ts');
      const { resetDefaultPunkt } = await import('../../core/text/punkt-resolve.ts');
      const url = opts.url ?? PUNKT_TAB_URL;
      process.stderr.write(`downloading ${url}\n`);
      let lastShown = 0;
      const started = Date.now();
      const result = await fetchPunkt({
        ...opts,
        onProgress: (got, total) => {
          if (Date.now() - lastShown < 500 && got !== total) return;
          lastShown = Date.now();
          const rate = got / Math.max(0.001, (Date.now() - started) / 1000);
          const pct = total ? ` of ${(total / 1e6).toFixed(1)} MB (${((100 * got) / total).toFixed(0)}%)` : '';
          process.stderr.write(`  ${(got / 1e6).toFixed(1)} MB${pct}, ${(rate / 1e6).toFixed(1)} MB/s\n`);
        },
      });
      resetDefaultPunkt();
      process.stdout.write(
        `installed NLTK punkt_tab (English) in ${result.dir}\n` +
          `  archive ${result.bytes} bytes, SHA-256 ${result.sha256} (verified)\n` +
          Object.entries(result.files)
            .map(([n, f]) => `  ${n.padEnd(18)} ${String(f.bytes).padStart(7)} bytes  ${f.sha256}\n`)
            .join('') +
          `  ${result.params.abbrevTypes.size} abbreviations, ${result.params.collocations.size} collocations, ` +
          `${result.params.sentStarters.size} sentence starters, ${result.params.orthoContext.size} ortho-context types\n`,
      );
    });

  data
    .command('where')
    .description('show which Punkt parameters the tokenizers use, in resolution order')
    .argument('<package>', 'punkt')
    .option('--punkt <path>', 'an explicit english.json file or punkt_tab/english folder')
    .action(async (pkg: string, opts: { punkt?: string }) => {
      if (pkg !== 'punkt') throw new UserError(`unknown data package ${JSON.stringify(pkg)}; available: punkt`);
      const { punktCandidates, resolvePunkt } = await import('../../core/text/punkt-resolve.ts');
      const candidates = punktCandidates(opts.punkt);
      const params = resolvePunkt(opts.punkt);
      for (const [i, c] of candidates.entries()) process.stdout.write(`${i === 0 ? '* ' : '  '}${c.origin.padEnd(13)} ${c.path}\n`);
      process.stdout.write(
        `using ${params.source}: ${params.abbrevTypes.size} abbreviations, ${params.collocations.size} collocations, ` +
          `${params.sentStarters.size} sentence starters, ${params.orthoContext.size} ortho-context types\n`,
      );
    });
}
