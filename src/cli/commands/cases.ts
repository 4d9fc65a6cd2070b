// `revloop cases validate|manifest`: check case files and show the manifest a run plan embeds.
import { Option, type Command } from 'commander';
import { addOptionWithAliases, inputFormatOption, jsonOption, pluginOption, wholeParser } from '../options.ts';
import { forPeople, inputPath, isStdio } from '../stdio.ts';
import { UserError } from '../../core/errors.ts';
import type { CaseFormat } from '../../core/cases/types.ts';
import { DEFAULT_MAX_SHOWN } from '../../core/cases/errors.ts';

interface CommonOptions {
  plugin?: string[];
  inputFormat?: CaseFormat;
  strict?: boolean;
  maxErrors: number;
}

/** A file argument as messages name it: `-` is standard input. */
const shownName = (file: string) => (isStdio(file) ? 'standard input' : file);

const maxErrorsOption = (help: string) =>
  new Option('--max-errors <n>', help).argParser(wholeParser('--max-errors', { min: 1 })).default(DEFAULT_MAX_SHOWN);

/** The options both subcommands share (format, strictness, error count, plugins). */
function commonOptions(cmd: Command, strictHelp: string, maxErrorsHelp: string): Command {
  addOptionWithAliases(cmd, inputFormatOption(), '--format');
  return cmd.option('--strict', strictHelp).addOption(maxErrorsOption(maxErrorsHelp)).addOption(pluginOption());
}

async function loadPlugins(paths: string[] | undefined): Promise<void> {
  const { loadFamilyPlugins } = await import('../../core/verify/index.ts');
  await loadFamilyPlugins(paths);
}

function formatCounts(counts: Record<string, number>): string {
  const entries = Object.entries(counts);
  return entries.length ? entries.map(([k, n]) => `${k} ${n}`).join(', ') : 'none';
}

export function register(program: Command): void {
  const cases = program
    .command('cases')
    .summary('validate case files and show their manifests')
    .description(
      "Case files: the paper's exact-length and lexical/compositional sets, COLLIE rows, or revloop's " +
        'native JSON Lines format (docs/cases.md). The format is detected from the first row unless --format is given.',
    );

  const validate = cases
    .command('validate')
    .description('check every row of each file (fields, types, witnesses against their own verifier); exit 1 if any file has problems')
    .argument('<files...>', "case files (JSON Lines; '-' = standard input)");
  commonOptions(
    validate,
    'treat COLLIE rows whose structure has no family as errors instead of skipping them',
    'problems shown per file before a count of the rest',
  ).action(async (files: string[], opts: CommonOptions) => {
    await loadPlugins(opts.plugin);
    const { validateCaseFile } = await import('../../core/cases/load.ts');
    const { renderProblems } = await import('../../core/cases/errors.ts');
    const format = opts.inputFormat;
    const shown = opts.maxErrors;
    let bad = 0;
    for (const file of files) {
      let report;
      try {
        report = await validateCaseFile(await inputPath(file, 'cases validate'), { format, strict: opts.strict });
      } catch (e) {
        // A file-level problem (missing file, undetectable format) fails this file, not the others.
        if (!(e instanceof UserError)) throw e;
        bad++;
        const message = forPeople(e.message);
        process.stderr.write(`FAIL ${message.startsWith(forPeople(file)) ? message : `${shownName(file)}: ${message}`}\n`);
        continue;
      }
      if (report.problems.length || !report.manifest) {
        bad++;
        const n = report.problems.length;
        process.stderr.write(
          `FAIL ${shownName(file)}: ${n} problem${n === 1 ? '' : 's'}${report.format ? ` (format ${report.format})` : ''}\n`,
        );
        process.stderr.write(forPeople(renderProblems(report.file, report.problems, shown)) + '\n');
        continue;
      }
      const m = report.manifest;
      process.stdout.write(
        `ok   ${shownName(file)}: ${m.case_count} cases (format ${m.format}); families: ${formatCounts(m.counts.by_family)}; ` +
          `sha256 ${m.file_sha256.slice(0, 16)}…\n`,
      );
      if (m.unsupported.count) {
        process.stdout.write(
          `     ${m.unsupported.count} rows skipped: no family runs structure ${formatCounts(m.unsupported.by_structure)} (use --strict to make this an error)\n`,
        );
      }
    }
    if (bad) {
      process.stderr.write(`revloop: ${bad} of ${files.length} file${files.length === 1 ? '' : 's'} failed validation\n`);
      process.exitCode = 1;
    }
  });

  const manifest = cases
    .command('manifest')
    .description('print the case-set manifest (counts, file SHA-256, per-row SHA-256, manifest hash) that run plans embed')
    .argument('<file>', "case file (JSON Lines; '-' = standard input)")
    .addOption(jsonOption('print the whole manifest as JSON'));
  commonOptions(manifest, 'treat COLLIE rows whose structure has no family as errors', 'problems shown before a count of the rest').action(
    async (file: string, opts: CommonOptions & { json?: boolean }) => {
      await loadPlugins(opts.plugin);
      const { loadCaseSet } = await import('../../core/cases/load.ts');
      const { manifest: m } = await loadCaseSet(await inputPath(file, 'cases manifest'), {
        format: opts.inputFormat,
        strict: opts.strict,
        maxShown: opts.maxErrors,
      });
      if (opts.json) {
        process.stdout.write(JSON.stringify(m, null, 2) + '\n');
        return;
      }
      const lines = [
        `case set        ${shownName(file)}`,
        `format          ${m.format}`,
        `cases           ${m.case_count}`,
        `by family       ${formatCounts(m.counts.by_family)}`,
        `by structure    ${formatCounts(m.counts.by_structure)}`,
        `by source       ${formatCounts(m.counts.by_source)}`,
        `unsupported     ${m.unsupported.count ? `${m.unsupported.count} rows skipped (${formatCounts(m.unsupported.by_structure)})` : 'none'}`,
        `file sha256     ${m.file_sha256} (${m.file_bytes} bytes)`,
        `manifest sha256 ${m.manifest_sha256}`,
        `(per-row SHA-256 of ${m.rows.length} rows: --json)`,
      ];
      process.stdout.write(lines.join('\n') + '\n');
    },
  );
}
