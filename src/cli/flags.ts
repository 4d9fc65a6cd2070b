// Flag parsing and progress lines shared by the commands: repeatable flags, whole-number flags
// (analyze, report), `controller=panel` assignments, and a stderr progress line that rewrites itself on a
// terminal and prints a line per quarter otherwise.
import { UserError } from '../core/errors.ts';

/** Commander's collector for a repeatable flag (`--plugin a.ts --plugin b.ts`). */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The run a command names as its argument or with --run; two different names are a mistake. */
export function oneRun(command: string, positional: string | undefined, flag: string | undefined, usage: string): string {
  if (positional !== undefined && flag !== undefined && positional !== flag) {
    throw new UserError(`${command}: two runs named ('${positional}' and --run '${flag}'); name one (${usage})`);
  }
  const run = flag ?? positional;
  if (!run) throw new UserError(`${command}: name the run (${usage})`);
  return run;
}

/** A whole-number flag ≥ min; `command` prefixes the error (e.g. "analyze"). */
export function intFlag(command: string, name: string, value: string, min: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) {
    throw new UserError(`${command}: ${name} must be a whole number ≥ ${min} (got "${value}")`);
  }
  return n;
}

/** `--panel controller=panel` assignments (the last '=' splits, so controller names may contain one). */
export function parsePanels(command: string, specs: readonly string[]): Record<string, string> {
  const panels: Record<string, string> = {};
  for (const spec of specs) {
    const at = spec.lastIndexOf('=');
    if (at <= 0 || at === spec.length - 1) {
      throw new UserError(`${command}: --panel expects controller=panel (got "${spec}"), e.g. --panel "sim:fast=simulated"`);
    }
    panels[spec.slice(0, at)] = spec.slice(at + 1);
  }
  return panels;
}

export interface ProgressLine {
  update(p: { done: number; total: number }): void;
  /** Ends a rewritten terminal line; safe to call more than once. */
  done(): void;
}

/** `<prefix>: 42% (4,200/10,000 <unit>), 1.2 s elapsed, ETA 2 s` on stderr. */
export function progressLine(prefix: string, unit: string, stream: NodeJS.WriteStream = process.stderr): ProgressLine {
  const tty = stream.isTTY;
  const start = performance.now();
  let lastPrint = 0;
  let lastQuarter = -1;
  let printed = false;
  return {
    update({ done, total }) {
      if (!total) return;
      const now = performance.now();
      const elapsed = (now - start) / 1000;
      const fraction = done / total;
      const eta = fraction > 0 ? elapsed * (1 / fraction - 1) : 0;
      const line = `${prefix}: ${(100 * fraction).toFixed(0)}% (${done.toLocaleString('en')}/${total.toLocaleString('en')} ${unit}), ${elapsed.toFixed(1)} s elapsed, ETA ${eta.toFixed(0)} s`;
      if (tty) {
        if (now - lastPrint < 200 && done < total) return;
        lastPrint = now;
        stream.write(`\r${line}\x1b[K`);
        printed = true;
      } else {
        const quarter = Math.floor(fraction * 4);
        if (quarter === lastQuarter || elapsed < 2) return;
        lastQuarter = quarter;
        stream.write(`${line}\n`);
      }
    },
    done() {
      if (tty && printed) stream.write('\n');
      printed = false;
    },
  };
}
