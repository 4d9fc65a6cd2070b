// `revloop view`: a live web viewer for a store's runs, trajectories and run-vs-run comparisons.
// A thin shell over app/view.ts: parse the flags, start the server, print where it is (and its
// access token, once, when it listens beyond this machine), serve until Ctrl-C.
import type { Command } from 'commander';
import { spawn } from 'node:child_process';
import { UsageError } from '../../core/errors.ts';
import { redactLocation } from '../../store/store.ts';
import { wholeNumber } from '../flags.ts';
import { addHelpAfter } from '../help.ts';
import { bootstrapOption, bootstrapSeedOption, storeOption } from '../options.ts';
import { VIEW_DEFAULTS } from '../../app/defaults.ts';
import { ANALYSIS_DEFAULTS } from '../../studies/revision/analysis/defaults.ts';
import { VIEWER_SERVER_DEFAULTS } from '../../viewer/defaults.ts';

interface ViewFlags {
  store: string;
  port?: string;
  host?: string;
  open?: boolean;
  bootstrap: number;
  seed: number;
  maxStreams?: string;
  allowUnverified?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('view')
    .summary('a live web viewer: runs, trajectories with filters, timelines, run-vs-run comparison')
    .description(
      'Serves a local web app over a store, read-only, that updates while runs are written: the run list with live progress, ' +
        "each run's analysis sections, a filterable trajectory table, each trajectory's timeline (drafts with word diffs, the exact " +
        'verifier reports, recurrence and cycle markers, failed provider attempts) and a case-by-case comparison of two runs with ' +
        'exact McNemar. The JSON API behind it is documented in docs/viewer.md.',
    )
    .addOption(storeOption({ readOnly: true }))
    .option('--port <n>', 'port to listen on (0 picks a free one)', String(VIEWER_SERVER_DEFAULTS.port))
    .option(
      '--host <address>',
      'address to listen on; anything but loopback requires the access token printed at start',
      VIEWER_SERVER_DEFAULTS.host,
    )
    .option('--open', 'open the viewer in the default browser')
    .addOption(
      bootstrapOption(
        VIEW_DEFAULTS.bootstrap,
        `bootstrap resamples of the run pages' intervals (revloop analyze uses ${ANALYSIS_DEFAULTS.bootstrap})`,
      ),
    )
    .addOption(bootstrapSeedOption())
    .option(
      '--max-streams <n>',
      `most live event streams served at once; more are answered 429 (default ${VIEWER_SERVER_DEFAULTS.maxStreams})`,
    )
    .option(
      '--allow-unverified',
      'serve runs whose chain or tables disagree with their events (refused by default); their responses say so',
    );
  addHelpAfter(
    cmd,
    '\nThe store is opened read-only and never written; `revloop run` may write to it meanwhile. On loopback (the ' +
      'default) only requests addressed to this machine are answered. With --host 0.0.0.0 (or any other address) a ' +
      'random access token is printed once; every request must carry it (the printed URL does). Model outputs are ' +
      'shown as text, never as markup. Simulated (sim:) controllers are marked SIMULATED. See docs/viewer.md.',
  ).action(async (flags: ViewFlags) => {
    await viewAction(flags);
  });
}

/** Opens a URL in the desktop's browser; a failure is only a note (the URL is printed anyway). */
function openBrowser(url: string, err: { write(s: string): unknown }): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => err.write(`view: could not open a browser (${cmd}); open ${url} yourself\n`));
    child.unref();
  } catch {
    err.write(`view: could not open a browser; open ${url} yourself\n`);
  }
}

async function viewAction(flags: ViewFlags): Promise<void> {
  const store = flags.store;
  const host = (flags.host ?? VIEWER_SERVER_DEFAULTS.host).trim();
  if (!host) throw new UsageError('view: --host needs an address (127.0.0.1, ::1, 0.0.0.0, …)', { option: '--host' });
  const { startViewer } = await import('../../app/view.ts');
  const { unverifiedWarnings } = await import('../../app/verified.ts');
  const viewer = await startViewer({
    store,
    host,
    port: wholeNumber('--port', flags.port ?? String(VIEWER_SERVER_DEFAULTS.port), { min: 0, max: 65535 }),
    bootstrap: flags.bootstrap,
    seed: flags.seed,
    maxStreams: wholeNumber('--max-streams', flags.maxStreams, { min: 1, max: 10_000 }),
    allowUnverified: flags.allowUnverified,
    onUnverified: (runId, problems) => {
      for (const w of unverifiedWarnings({ heads: new Map(), unverified: [{ runId, problems }] }))
        process.stderr.write(`revloop: ${w}${flags.allowUnverified ? '' : ' (its pages are refused: --allow-unverified serves them)'}\n`);
    },
    log: (line) => process.stderr.write(line + '\n'),
  });
  const out = process.stdout;
  out.write(`revloop view: ${redactLocation(store)} (read-only) at ${viewer.url}\n`);
  if (viewer.token) {
    out.write(
      `  listening on ${viewer.host}, beyond this machine: every request needs the access token (shown only now):\n  ${viewer.token}\n` +
        '  open the URL above (it carries the token), or send "Authorization: Bearer <token>" from scripts\n',
    );
  }
  out.write('  Ctrl-C to stop\n');
  if (flags.open) openBrowser(viewer.url, process.stderr);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await viewer.close();
  process.stderr.write('revloop view: stopped\n');
}
