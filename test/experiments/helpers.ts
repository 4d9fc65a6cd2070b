// Shared pieces of the experiment tests: a source run made of our own drafts (played back by a
// scripted model, so every state is known in advance), a model that records every request, and the
// families' test cases (one per family, from the demo's own texts).
import { exactLengthDemoCases, structuredDemoCases } from '../../src/app/demo/cases.ts';
import { PAPER_PROTOCOL } from '../../src/engine/protocol.ts';
import { executeRun } from '../../src/engine/trajectory-run.ts';
import { modelCapabilities } from '../../src/models/capabilities.ts';
import type { AttemptRecord, ChatMessage, GenerateOptions, GenerateResult, Model } from '../../src/models/types.ts';
import type { RunStore } from '../../src/store/store.ts';
import { getFamily } from '../../src/core/verify/registry.ts';
import type { ConstraintCase } from '../../src/core/verify/types.ts';

/**
 * Nine drafts per case (revisions 0–8), all failing: d3 repeats d1, so the first recurrence event
 * is at revision 3 (origin 1), and every later draft is new.
 */
export function draftsFor(family: string): string[] {
  const base = [
    `A first attempt for the ${family} task, short and unfinished.`,
    `A second attempt for the ${family} task, still short.`,
    `A third attempt for the ${family} task. It adds one sentence.`,
  ];
  const later = ['five', 'six', 'seven', 'eight', 'nine'].map((w) => `Attempt number ${w} for the ${family} task, which keeps missing.`);
  return [base[0], base[1], base[2], base[1], ...later];
}

/** One case per family: the demo's first exact-length case, and the first of each structured family when Punkt is there. */
export function familyCases(structured: boolean): ConstraintCase[] {
  const exact = exactLengthDemoCases()[0];
  if (!structured) return [exact];
  const s = structuredDemoCases();
  return [exact, ...['c05', 'c07', 'c09', 'c10', 'c12'].map((f) => s.find((c) => c.family === f)!)];
}

/** Plays back each case's drafts by revision (the number of assistant turns so far). */
export function playbackModel(drafts: Map<string, string[]>, label = 'playback'): Model {
  return {
    spec: `playback:${label}`,
    label,
    capabilities: modelCapabilities({ simulated: true }),
    async generate(messages: ChatMessage[], options: GenerateOptions): Promise<GenerateResult> {
      const list = drafts.get(messages[0].content);
      const revision = messages.filter((m) => m.role === 'assistant').length;
      const text = list?.[revision];
      if (text === undefined) throw new Error(`no draft for revision ${revision}`);
      const rec: AttemptRecord = { ok: true, text, startedAt: '2026-01-01T00:00:00.000Z', latencyMs: 0 };
      options.onAttempt?.(rec);
      return { text, attempts: [rec] };
    },
  };
}

export interface RecordedCall {
  messages: ChatMessage[];
  banned: string[] | undefined;
}

export interface RecordingModel extends Model {
  calls: RecordedCall[];
}

/** Records every request and answers with one fixed (failing) text. */
export function recordingModel(label = 'recorder', reply = 'Recorded reply.'): RecordingModel {
  const calls: RecordedCall[] = [];
  return {
    spec: `recording:${label}`,
    label,
    capabilities: modelCapabilities({ ban: true, simulated: true }),
    calls,
    async generate(messages, options) {
      calls.push({ messages: structuredClone(messages), banned: options.bannedSequences ? [...options.bannedSequences] : undefined });
      const rec: AttemptRecord = { ok: true, text: reply, startedAt: '2026-01-01T00:00:00.000Z', latencyMs: 0 };
      options.onAttempt?.(rec);
      return { text: reply, attempts: [rec] };
    },
  };
}

/** A source run of the given cases whose drafts are `draftsFor(family)`, budget 8 (nine rounds each). */
export async function playbackSourceRun(store: RunStore, runId: string, cases: ConstraintCase[], label = 'playback'): Promise<void> {
  const drafts = new Map(cases.map((c) => [getFamily(c.family).initialPrompt(c, 'baseline'), draftsFor(c.family)]));
  await executeRun({
    store,
    runId,
    cases,
    caseSet: { format: 'test', total: cases.length, limit: null, fileSha256: null, manifest: null, path: null },
    model: playbackModel(drafts, label),
    protocol: PAPER_PROTOCOL,
    resolveFamily: getFamily,
  });
}
