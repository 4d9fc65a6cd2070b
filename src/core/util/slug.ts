// Readable, filesystem- and shell-safe pieces of default run ids.

/** Runs of characters other than letters, digits, '.', '_' and '-' become '-'; no '-' at the ends. */
export function slug(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
}

/** A model label as a run-id part for probe and agent runs: "[simulated]" reads "sim", at most 80 characters. */
export function modelLabelSlug(label: string): string {
  return slug(label.replace(/\[simulated\]/g, 'sim')).slice(0, 80) || 'model';
}
