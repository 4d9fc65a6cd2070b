// Every CLI command, in help order, by name. Each module exports `register(program)` and imports its
// heavy dependencies (model backends, the store, the report renderer) inside its action. The modules
// load on demand: a command line that names one command loads only that one (cli/main.ts).
import type { Command } from 'commander';

type Register = (program: Command) => void;

/** [name, load]: the command's name as typed, and a loader of its `register`. */
export const COMMANDS: ReadonlyArray<readonly [string, () => Promise<Register>]> = [
  ['demo', async () => (await import('./demo.ts')).register],
  ['verify', async () => (await import('./verify.ts')).register],
  ['cases', async () => (await import('./cases.ts')).register],
  ['run', async () => (await import('./run.ts')).register],
  ['compare-policies', async () => (await import('./compare-policies.ts')).register],
  ['worker', async () => (await import('./worker.ts')).register],
  ['runs', async () => (await import('./runs.ts')).register],
  ['store', async () => (await import('./store.ts')).register],
  ['audit', async () => (await import('./audit.ts')).register],
  ['export', async () => (await import('./export.ts')).register],
  ['import-trajectories', async () => (await import('./import-trajectories.ts')).register],
  ['analyze', async () => (await import('./analyze.ts')).register],
  ['report', async () => (await import('./report.ts')).register],
  ['experiment', async () => (await import('./experiment.ts')).register],
  ['view', async () => (await import('./view.ts')).register],
  ['probe', async () => (await import('./probe.ts')).register],
  ['agent', async () => (await import('./agent.ts')).register],
  ['model', async () => (await import('./model.ts')).register],
  ['serve-sim', async () => (await import('./serve-sim.ts')).register],
  ['data', async () => (await import('./data.ts')).register],
];
