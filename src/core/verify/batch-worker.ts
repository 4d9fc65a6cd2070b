// A worker thread of batch verification (batch-threads.ts starts it): loads the same plugins as the
// main thread, checks it knows every family the main thread knows, then verifies each chunk it is
// sent with verifyChunk and answers with the output text. An environment problem (a UserError, e.g.
// no Punkt parameters) is sent back as fatal and stops the batch, as on the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { getDefaultPunkt } from '../text/punkt-resolve.ts';
import { RevloopError } from '../errors.ts';
import { verifyChunk } from './batch.ts';
import type { WorkerChunk, WorkerMessage, WorkerSetup } from './batch-threads.ts';
import { loadFamilyPlugins } from './plugins.ts';
import { familyNames, loadFamilies } from './registry.ts';

const port = parentPort!;
const setup = workerData as WorkerSetup;
const send = (m: WorkerMessage): void => port.postMessage(m);

async function start(): Promise<void> {
  try {
    // A thread has a registry of its own, which loads built-ins on demand (registry.ts): a batch may hold any.
    await loadFamilies();
    await loadFamilyPlugins(setup.plugins);
  } catch (e) {
    send({ type: 'unusable', missing: [], reason: (e as Error).message });
    return;
  }
  const have = new Set(familyNames());
  const missing = setup.families.filter((f) => !have.has(f));
  if (missing.length > 0) {
    send({ type: 'unusable', missing });
    return;
  }
  // Load the Punkt parameters before the first chunk arrives; a batch without structured families
  // does not need them, so their absence is reported only by a verification that does.
  try {
    getDefaultPunkt();
  } catch {
    // reported later, if needed
  }
  port.on('message', (c: WorkerChunk) => {
    try {
      send({ type: 'result', seq: c.seq, result: verifyChunk(c.lines, c.firstLine, setup.request, c.invalid) });
    } catch (e) {
      send({ type: 'fatal', seq: c.seq, message: (e as Error).message, code: RevloopError.isInstance(e) ? e.code : null });
    }
  });
  send({ type: 'ready' });
}

void start();
