// `revloop data fetch punkt`: downloads NLTK's punkt_tab package, checks its SHA-256, and installs the
// English folder under the user data dir atomically (a temporary folder renamed into place; nothing is
// left behind on failure).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { UserError, NotFoundError, InputError, UsageError, namingOption } from '../errors.ts';
import { parsePunktTab, PUNKT_TAB_FILES, type PunktParams } from './punkt-params.ts';
import { userDataDir } from './punkt-resolve.ts';
import { zipEntries, zipRead } from './zip.ts';

/** NLTK's official location of the package (what `nltk.download('punkt_tab')` fetches, via its index). */
export const PUNKT_TAB_URL = 'https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/packages/tokenizers/punkt_tab.zip';
/**
 * SHA-256 and size of punkt_tab.zip as pinned by several independent public projects (the nltk_data
 * revision of 2025-02-17). Not verified on this machine, which has no internet access: see docs/text.md.
 */
export const PUNKT_TAB_ZIP_SHA256 = 'e57f64187974277726a3417ca6f181ec5403676c717672eef6a748a7b20e0106';
export const PUNKT_TAB_ZIP_BYTES = 4_319_076;
/**
 * SHA-256 and size of each extracted `punkt_tab/english/` file (same public sources). The sizes, and
 * the content as a set of lines, are what we regenerate from ../shared/data/punkt/english.json; the
 * hashes also depend on NLTK's line order, which is not sorted, so they are checked, not regenerated.
 */
export const PUNKT_TAB_ENGLISH_FILES: Readonly<Record<(typeof PUNKT_TAB_FILES)[number], { bytes: number; sha256: string }>> = {
  'abbrev_types.txt': { bytes: 619, sha256: '92a3e070f43d9b4c5534758ca40ad7343b04e7e29bfe0c2eb658a39445a4f779' },
  'collocations.tab': { bytes: 594, sha256: '8e2da1225e4dd2cc9dba261ee231ccb134859e21b46006e7f472c5ee269af0cf' },
  'ortho_context.tab': { bytes: 236_303, sha256: '4bbcca25ed3d3f06c02402abf8419b9f033b8adc06e7b482eca4e45f81a5dc4c' },
  'sent_starters.txt': { bytes: 241, sha256: 'f3f8535483e1dba487241b764945168123bca3209a9645e59acd1225dc76edac' },
};

/**
 * Options of `fetchPunkt`: the destination data folder (default `~/.revloop/data` or `$REVLOOP_DATA_DIR`), the URL and its expected
 * SHA-256.
 */
export interface FetchPunktOptions {
  /** Data folder; the files go to `<dest>/punkt_tab/english`. Default: userDataDir(). */
  dest?: string;
  url?: string;
  /** Expected SHA-256 of the archive. Default: the pinned PUNKT_TAB_ZIP_SHA256. */
  sha256?: string;
  /** Expected per-file hashes; null skips them (a different release given with its own sha256). */
  files?: Readonly<Record<string, { bytes: number; sha256: string }>> | null;
  /** Progress callback (bytes so far, total bytes or null). */
  onProgress?: (received: number, total: number | null) => void;
  /** Aborts a stalled download (default 120 s). */
  timeoutMs?: number;
}

/** What `fetchPunkt` installed: the folder, the URL and SHA-256 it checked, and the files. */
export interface FetchPunktResult {
  dir: string;
  url: string;
  sha256: string;
  bytes: number;
  files: Record<string, { bytes: number; sha256: string }>;
  params: PunktParams;
}

function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

async function download(url: string, onProgress: FetchPunktOptions['onProgress'], timeoutMs: number): Promise<Buffer> {
  // A local copy (downloaded elsewhere, for machines without internet): a path or a file: URL.
  if (!/^https?:\/\//i.test(url)) {
    const path = url.startsWith('file:') ? fileURLToPath(url) : url;
    if (!existsSync(path))
      throw new NotFoundError(`${url}: no such file (give an http(s) URL or the path of a downloaded punkt_tab.zip)`, {
        kind: 'file',
        target: path,
      });
    const data = readFileSync(path);
    onProgress?.(data.length, data.length);
    return data;
  }
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
  } catch (e) {
    const err = e as Error & { cause?: { code?: string; message?: string } };
    const why =
      err.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : (err.cause?.code ?? err.cause?.message ?? err.message);
    throw namingOption(
      'url',
      (n) =>
        new UserError(
          `could not download ${url}: ${why}. Check the network connection (Node's fetch ignores HTTP(S)_PROXY), ` +
            `or download punkt_tab.zip elsewhere and pass its path with ${n}.`,
        ),
    );
  }
  if (!res.ok || !res.body) {
    const failed = `could not download ${url}: HTTP ${res.status} ${res.statusText}`.trimEnd();
    throw namingOption('url', (n) => new UserError(`${failed}. Check the URL (${n}) or try again later.`));
  }
  const total = Number(res.headers.get('content-length')) || null;
  const chunks: Buffer[] = [];
  let received = 0;
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      chunks.push(Buffer.from(chunk));
      received += chunk.length;
      onProgress?.(received, total);
    }
  } catch (e) {
    throw new UserError(`download of ${url} broke off after ${received} bytes: ${(e as Error).message}`);
  }
  return Buffer.concat(chunks);
}

/** Extracts `punkt_tab/english/*` from the archive and checks each file. */
export function extractEnglish(zip: Buffer, label: string, expected: FetchPunktOptions['files']): Record<string, Buffer> {
  const entries = zipEntries(zip, label);
  const out: Record<string, Buffer> = {};
  for (const name of PUNKT_TAB_FILES) {
    const entry = entries.find((e) => e.name === `punkt_tab/english/${name}`);
    if (!entry) throw new InputError(`punkt_tab/english/${name} is missing from the archive`, { file: label });
    const data = zipRead(zip, entry, label);
    const want = expected?.[name];
    if (want && (data.length !== want.bytes || sha256(data) !== want.sha256)) {
      throw new InputError(`${data.length} bytes, SHA-256 ${sha256(data)}; expected ${want.bytes} bytes, ${want.sha256}`, {
        file: label,
        field: `punkt_tab/english/${name}`,
      });
    }
    out[name] = data;
  }
  return out;
}

/** Downloads, verifies and installs NLTK's English punkt_tab folder; returns where it went. */
export async function fetchPunkt(options: FetchPunktOptions = {}): Promise<FetchPunktResult> {
  const url = options.url ?? PUNKT_TAB_URL;
  const wantSha = (options.sha256 ?? PUNKT_TAB_ZIP_SHA256).toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(wantSha))
    throw namingOption(
      'sha256',
      (n) => new UsageError(`${n}: expected 64 hex digits, got ${JSON.stringify(options.sha256)}`, { option: n }),
    );
  const expectedFiles = options.files === undefined ? (options.sha256 ? null : PUNKT_TAB_ENGLISH_FILES) : options.files;
  const dataDir = options.dest ?? userDataDir();
  const zip = await download(url, options.onProgress, options.timeoutMs ?? 120_000);
  const gotSha = sha256(zip);
  if (gotSha !== wantSha) {
    throw namingOption(
      'sha256',
      (n) =>
        new UserError(
          `refusing ${url}: SHA-256 ${gotSha} (${zip.length} bytes) does not match the expected ${wantSha}. ` +
            `Nothing was written. If NLTK published a new release on purpose, pass its hash with ${n}.`,
        ),
    );
  }
  const files = extractEnglish(zip, url, expectedFiles);
  const text = (name: (typeof PUNKT_TAB_FILES)[number]): string => files[name].toString('utf8');
  const finalDir = join(dataDir, 'punkt_tab', 'english');
  const params = parsePunktTab(text, finalDir); // refuse unparsable data before touching the destination

  mkdirSync(join(dataDir, 'punkt_tab'), { recursive: true });
  const tmp = mkdtempSync(join(dataDir, 'punkt_tab', '.english-tmp-'));
  let backup: string | null = null;
  try {
    for (const name of PUNKT_TAB_FILES) writeFileSync(join(tmp, name), files[name]);
    if (existsSync(finalDir)) {
      backup = `${tmp}-old`;
      renameSync(finalDir, backup);
    }
    renameSync(tmp, finalDir);
  } catch (e) {
    if (backup && !existsSync(finalDir)) renameSync(backup, finalDir);
    rmSync(tmp, { recursive: true, force: true });
    throw new UserError(`could not install Punkt data into ${finalDir}: ${(e as Error).message}`);
  }
  if (backup) rmSync(backup, { recursive: true, force: true });
  return {
    dir: finalDir,
    url,
    sha256: gotSha,
    bytes: zip.length,
    files: Object.fromEntries(PUNKT_TAB_FILES.map((n) => [n, { bytes: files[n].length, sha256: sha256(files[n]) }])),
    params: { ...params, source: finalDir },
  };
}
