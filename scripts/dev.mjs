#!/usr/bin/env node
// `npm run dev -- <command> …`: the CLI from the sources through tsx, without the launcher's
// staleness note. The environment variable is set here rather than in package.json so that the
// script also works where the shell has no `VAR=value cmd` syntax (Windows' cmd.exe).
process.env.REVLOOP_FROM_SOURCE = '1';
await import('../bin/revloop.mjs');
