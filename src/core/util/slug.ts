// Readable, filesystem- and shell-safe pieces of default run ids, and the id-safe form of a label.
// Ids revloop builds are made of [A-Za-z0-9._:-] only, and never carry a simulation's
// "[simulated]" (the run's own flag and every output's SIMULATED mark say it; core/simulated.ts).
import { baseLabel } from '../simulated.ts';

/** Runs of characters other than letters, digits, '.', '_' and '-' become '-'; no '-' at the ends. */
export function slug(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
}

/** A model label as an id part: without "[simulated]", runs of other characters than [A-Za-z0-9._:-] as '-'. */
export function labelId(label: string): string {
  return (
    baseLabel(label)
      .replace(/[^A-Za-z0-9._:-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'model'
  );
}

/** A model label as a run-id part for probe and agent runs: without "[simulated]", at most 80 characters. */
export function modelLabelSlug(label: string): string {
  return slug(baseLabel(label)).slice(0, 80) || 'model';
}

/**
 * The run-id part earlier versions gave a label ("[simulated]" read "sim": `sim-steady-sim`); a
 * default run id built from it still names an earlier run, which the same command resumes.
 */
export function legacyModelLabelSlug(label: string): string {
  return slug(label.replace(/\[simulated\]/g, 'sim')).slice(0, 80) || 'model';
}
