// Help that fits the terminal: descriptions wrapped to the width (terminal.ts), a long option's
// description put under it instead of squeezing every other one, and texts added after the options
// wrapped alike; `--wide` leaves every line whole.
import { Help, type Command } from 'commander';
import { helpWidth, wrapText } from './terminal.ts';

/** The widest option column: a longer option gets its description on the lines below it. */
const MAX_TERM = 30;
/** Indent of a description under its option. */
const UNDER = 8;

/** Applies the layout to a program (its commands inherit it) and sizes help to the terminal. */
export function configureHelpLayout(program: Command): Command {
  return program
    .configureOutput({ getOutHelpWidth: () => helpWidth(process.stdout), getErrHelpWidth: () => helpWidth(process.stderr) })
    .configureHelp({
      minWidthToWrap: 20,
      padWidth(cmd: Command, helper: Help): number {
        return Math.min(Help.prototype.padWidth.call(this, cmd, helper), MAX_TERM);
      },
      formatItem(term: string, termWidth: number, description: string, helper: Help): string {
        if (!description) return `  ${term}`;
        const width = helper.helpWidth ?? 80;
        const room = width - termWidth - 4;
        if (helper.displayWidth(term) <= termWidth && (room >= 30 || !Number.isFinite(width))) {
          const text = Number.isFinite(width) ? helper.boxWrap(description, room) : description;
          return `  ${term.padEnd(termWidth)}  ${text.replace(/\n/g, `\n${' '.repeat(termWidth + 4)}`)}`;
        }
        const under = Number.isFinite(width) ? helper.boxWrap(description, Math.max(width - UNDER, 20)) : description;
        return `  ${term}\n${under.replace(/^/gm, ' '.repeat(UNDER))}`;
      },
    });
}

/** Text after a command's options (notes, examples), wrapped to the help width when it is shown. */
export function addHelpAfter(cmd: Command, text: string): Command {
  return cmd.addHelpText('after', (context) => wrapText(text, helpWidth(context.error ? process.stderr : process.stdout)));
}
