// `revloop serve-sim`: the simulated controllers behind an OpenAI-compatible HTTP API, for tests,
// demos and benchmarks. Everything it answers is marked as simulated.
import type { Command } from 'commander';
import { UserError } from '../../core/errors.ts';
import { SIM_SERVER_DEFAULTS } from '../../models/sim/defaults.ts';

interface ServeSimFlags {
  port: string;
  host: string;
  latencyMs: string;
}

export function register(program: Command): void {
  program
    .command('serve-sim')
    .description('serve the SIMULATED controllers (sim:<profile>) over an OpenAI-compatible HTTP API, with vLLM scoring/ban emulation')
    .option('--port <port>', 'TCP port; 0 picks a free one and prints it', String(SIM_SERVER_DEFAULTS.port))
    .option('--host <host>', 'interface to listen on', SIM_SERVER_DEFAULTS.host)
    .option(
      '--latency-ms <ms>',
      "artificial latency per generation (a spec's latency_ms wins; sim:instant never waits)",
      String(SIM_SERVER_DEFAULTS.latencyMs),
    )
    .addHelpText(
      'after',
      `
Clients name the profile as the model, e.g. with the OpenAI-compatible backend:
  revloop serve-sim --port 8100 &
  revloop run --cases cases.jsonl \\
    --model 'openai-compatible:http://127.0.0.1:8100/v1#sim:steady?seed=3'
Endpoints: GET /v1/models, POST /v1/chat/completions, POST /v1/completions,
POST /tokenize, POST /detokenize. Stop with Ctrl-C (SIGINT) or SIGTERM.`,
    )
    .action(async (flags: ServeSimFlags) => {
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new UserError(`--port must be an integer from 0 to 65535 (got "${flags.port}")`);
      const latencyMs = Number(flags.latencyMs);
      if (!Number.isFinite(latencyMs) || latencyMs < 0) throw new UserError(`--latency-ms must be a number ≥ 0 (got "${flags.latencyMs}")`);
      const { startSimServer } = await import('../../models/sim/server.ts');
      const { SIM_PROFILES } = await import('../../models/sim/profiles.ts');
      let sim;
      try {
        sim = await startSimServer({ port, host: flags.host, latencyMs });
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (code === 'EADDRINUSE')
          throw new UserError(`port ${port} on ${flags.host} is already in use; choose another --port (or --port 0 for any free port)`);
        if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
          throw new UserError(`cannot listen on host "${flags.host}" (${code}); use an address of this machine, e.g. 127.0.0.1`);
        if (code === 'EACCES') throw new UserError(`no permission to listen on port ${port}; use a port above 1023`);
        throw e;
      }
      process.stdout.write(
        `serve-sim listening on ${sim.url} (port ${sim.port}) — SIMULATED controllers: ${Object.keys(SIM_PROFILES)
          .map((p) => 'sim:' + p)
          .join(', ')}\n`,
      );
      if (latencyMs > 0) process.stdout.write(`artificial latency: ${latencyMs} ms per generation\n`);
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          process.off('SIGINT', onInt);
          process.off('SIGTERM', onTerm);
          process.stderr.write(`serve-sim: ${signal}, shutting down after ${sim.stats.requests} requests\n`);
          void sim.close().then(resolve);
        };
        const onInt = () => stop('SIGINT');
        const onTerm = () => stop('SIGTERM');
        process.on('SIGINT', onInt);
        process.on('SIGTERM', onTerm);
      });
    });
}
