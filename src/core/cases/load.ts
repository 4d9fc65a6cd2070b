// Loading a case file: detect (or take) its format, read every row, validate all of them, and
// either return the cases with their manifest or throw one error listing every problem.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { UsageError, NotFoundError, InputError, namingOption } from '../errors.ts';
import { readJsonlLines } from '../util/jsonl.ts';
import { loadFamilies } from '../verify/registry.ts';
import type { ConstraintCase } from '../verify/types.ts';
import { FORMAT_HINTS, detectRowFormat } from './detect.ts';
import { CaseSetError, caseSetMessage, DEFAULT_MAX_SHOWN } from './errors.ts';
import { COLLIE_STRUCTURES, readCollieRow } from './formats/collie.ts';
import type { Row, RowResult } from './formats/common.ts';
import { readIfevalRow } from './formats/ifeval.ts';
import { readNativeRow } from './formats/native.ts';
import { readPaperExactRow } from './formats/paper-exact.ts';
import { readPaperStructuredRow } from './formats/paper-structured.ts';
import { computeManifest, rowSha256 } from './manifest.ts';
import { CASE_FORMATS, type CaseFormat, type CaseProblem, type LoadedCaseSet, type UnsupportedRow } from './types.ts';
import { checkCase } from './validate.ts';

const READERS: Record<CaseFormat, (row: Row) => RowResult> = {
  'paper-exact': readPaperExactRow,
  'paper-structured': readPaperStructuredRow,
  collie: readCollieRow,
  native: readNativeRow,
  ifeval: readIfevalRow,
};

/**
 * Options of `loadCaseSet` and `validateCaseFile`: the format (default: detected), COLLIE strictness, and how many problems a message
 * shows.
 */
export interface LoadOptions {
  /** Skip auto-detection. */
  format?: CaseFormat;
  /** Treat unsupported COLLIE structures as errors instead of reporting and skipping them. */
  strict?: boolean;
  /** How many problems the error message shows before a count of the rest (default 20). */
  maxShown?: number;
  /** Skip the witness / stored-state checks (fast loading of a file validated before). */
  skipWitnessChecks?: boolean;
}

/**
 * What `validateCaseFile` returns: the detected format, every problem found (empty when valid), and the cases and manifest when it
 * loaded.
 */
export interface ValidationReport extends Partial<LoadedCaseSet> {
  file: string;
  format: CaseFormat | undefined;
  problems: CaseProblem[];
}

export function parseFormat(name: string): CaseFormat {
  if ((CASE_FORMATS as readonly string[]).includes(name)) return name as CaseFormat;
  throw new UsageError(`unknown case format '${name}'; formats: ${CASE_FORMATS.join(', ')}`, { option: 'format' });
}

/** Hashes the file's bytes and counts them (one streaming pass). */
async function fileDigest(path: string): Promise<{ sha256: string; bytes: number }> {
  const h = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    h.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: h.digest('hex'), bytes };
}

/** Reads and checks a whole file; never throws for row problems (they are returned). */
export async function validateCaseFile(path: string, options: LoadOptions = {}): Promise<ValidationReport> {
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new NotFoundError(`${path}: no such file`, { kind: 'file', target: path });
  }
  if (!info.isFile()) throw new InputError('not a file', { file: path });

  const problems: CaseProblem[] = [];
  const cases: ConstraintCase[] = [];
  const structures: string[] = [];
  const unsupported: UnsupportedRow[] = [];
  const seenIds = new Map<string, number>();
  const ensured = new Set<string>();
  let format = options.format;
  let rows = 0;

  for await (const item of readJsonlLines(path)) {
    rows++;
    if (item.error) {
      problems.push({ line: item.line, field: item.field ?? null, problem: item.error });
      continue;
    }
    const value = item.value;
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      problems.push({ line: item.line, field: null, problem: 'expected a JSON object' });
      continue;
    }
    const row = value as Row;
    if (!format) {
      const detected = detectRowFormat(row);
      if (!detected) {
        const fields = Object.keys(row).join(', ');
        const formats = CASE_FORMATS.map((f) => `${f}: ${FORMAT_HINTS[f]}`).join('; ');
        throw namingOption(
          'format',
          (n) =>
            new InputError(
              `cannot tell the case format from the first row (fields: ${fields}); set ${n} to one of the formats (${formats})`,
              { file: path, line: item.line },
            ),
        );
      }
      format = detected;
    }
    const result = READERS[format](row);
    if (result.kind === 'unsupported') {
      if (options.strict)
        problems.push({
          line: item.line,
          field: 'structure',
          problem: `structure ${result.structure} has no family (runnable: ${COLLIE_STRUCTURES.join(', ')})`,
        });
      else unsupported.push({ line: item.line, id: result.id, structure: result.structure, sha256: rowSha256(row) });
      continue;
    }
    const rowProblems = [...result.problems];
    if (result.kind === 'case') {
      const c = result.case;
      if (c.id) {
        const first = seenIds.get(c.id);
        if (first !== undefined) rowProblems.push(['id', `duplicate id ${JSON.stringify(c.id)} (first on line ${first})`]);
        else seenIds.set(c.id, item.line);
      }
      if (rowProblems.length === 0 && c.family) {
        // The registry loads built-in families on demand: the first row of each family loads it.
        if (!ensured.has(c.family)) {
          await loadFamilies([c.family]);
          ensured.add(c.family);
        }
        const deep = options.skipWitnessChecks ? checkCaseFieldsOnly(c, format) : checkCase(c, format);
        rowProblems.push(...deep);
      }
      if (rowProblems.length === 0) {
        cases.push(c);
        structures.push(result.structure);
      }
    }
    for (const [field, problem] of rowProblems) problems.push({ line: item.line, field, problem });
  }
  if (rows === 0) problems.push({ line: null, field: null, problem: 'the file has no rows' });

  const report: ValidationReport = { file: path, format, problems };
  if (problems.length === 0 && format) {
    const digest = await fileDigest(path);
    report.cases = cases;
    report.unsupported = unsupported;
    report.manifest = computeManifest({ format, fileSha256: digest.sha256, fileBytes: digest.bytes, cases, structures, unsupported });
  }
  return report;
}

function checkCaseFieldsOnly(c: ConstraintCase, format: CaseFormat): Array<[string, string]> {
  return checkCase({ ...c, witness: undefined }, format);
}

/**
 * Loads a case file. Throws a CaseSetError (an InputError) listing every row problem as
 * `file:line: field: problem` when any row is invalid; nothing is returned partially.
 */
export async function loadCaseSet(path: string, options: LoadOptions = {}): Promise<LoadedCaseSet> {
  const report = await validateCaseFile(path, options);
  if (report.problems.length || !report.manifest || !report.format) {
    throw new CaseSetError(caseSetMessage(path, report.problems, options.maxShown ?? DEFAULT_MAX_SHOWN), {
      file: path,
      problems: report.problems,
    });
  }
  return { cases: report.cases!, manifest: report.manifest, format: report.format, unsupported: report.unsupported! };
}
