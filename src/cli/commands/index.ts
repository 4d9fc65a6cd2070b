// Every CLI command, in help order. Each module exports `register(program)`.
import type { Command } from 'commander';
import { register as verify } from './verify.ts';
import { register as data } from './data.ts';
import { register as cases } from './cases.ts';

export const COMMANDS: Array<(program: Command) => void> = [verify, cases, data];
