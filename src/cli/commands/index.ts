// Every CLI command, in help order. Each module exports `register(program)` and imports its heavy
// dependencies (model backends, the store, the report renderer) inside its action.
import type { Command } from 'commander';
import { register as demo } from './demo.ts';
import { register as verify } from './verify.ts';
import { register as cases } from './cases.ts';
import { register as run } from './run.ts';
import { register as comparePolicies } from './compare-policies.ts';
import { register as runs } from './runs.ts';
import { register as worker } from './worker.ts';
import { register as store } from './store.ts';
import { register as audit } from './audit.ts';
import { register as exportRun } from './export.ts';
import { register as importTrajectories } from './import-trajectories.ts';
import { register as analyze } from './analyze.ts';
import { register as report } from './report.ts';
import { register as experiment } from './experiment.ts';
import { register as view } from './view.ts';
import { register as probe } from './probe.ts';
import { register as agent } from './agent.ts';
import { register as model } from './model.ts';
import { register as serveSim } from './serve-sim.ts';
import { register as data } from './data.ts';

export const COMMANDS: Array<(program: Command) => void> = [
  demo,
  verify,
  cases,
  run,
  comparePolicies,
  worker,
  runs,
  store,
  audit,
  exportRun,
  importTrajectories,
  analyze,
  report,
  experiment,
  view,
  probe,
  agent,
  model,
  serveSim,
  data,
];
