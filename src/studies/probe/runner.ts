// The probe runner (docs/harness.md §3.6): scores every (item, condition, candidate) triple of a model.
// Conditions sharing the system prompt run in one pass, fail_instr in its own (its system prompt
// differs, so it would defeat the prefix cache); within a pass items are visited in order so the
// cache's longest-common-prefix seek does the rest. Keys already in the store are skipped (resume),
// each (item, condition) is written in one transaction, and every value passes the numeric guards.
import { CapabilityError } from '../../core/errors.ts';
import type { ProbeScorer, ScoringCounters } from './backend.ts';
import { guardScore } from './backend.ts';
import { buildConditionMessages, candidatesFor, conditionAvailable, conditionPasses } from './conditions.ts';
import { lengthMatchedNeutral } from './padding.ts';
import { scoreKey, type ProbeStore } from './probe-store.ts';
import type { Condition, ProbeItem, ScoreRecord } from './probe-types.ts';

/** Progress of `runProbe`: the pass, items done of the total, and scores written. */
export interface ProbeProgress {
  pass: number;
  passes: number;
  /** Items finished in this session across all passes, and the total. */
  done: number;
  total: number;
  scored: number;
  elapsedMs: number;
  /** 1 − forward/naive tokens so far (null when the backend keeps no counters). */
  cacheSaving: number | null;
}

/** Options of `runProbe`: the run id, the conditions, where the items came from (recorded in the plan), and progress and abort hooks. */
export interface RunProbeOptions {
  runId: string;
  conditions: readonly Condition[];
  itemsSource: string;
  itemsSha256: string;
  onProgress?: (p: ProbeProgress) => void;
  /** Checked between (item, condition) pairs: an abort ends the session cleanly as interrupted. */
  signal?: AbortSignal;
}

/** What `runProbe` returns: the run, the session, whether it completed or was interrupted, and the counts. */
export interface ProbeSessionResult {
  runId: string;
  session: number;
  status: 'complete' | 'interrupted';
  nScored: number;
  /** Keys skipped because the store already held them. */
  nPresent: number;
  /** (item, condition) pairs that cannot be built (fail_other without a distractor). */
  nUnavailable: number;
  counters: ScoringCounters | null;
  cacheSaving: number | null;
  seconds: number;
}

function diffCounters(a: ScoringCounters | null, b: ScoringCounters | null): ScoringCounters | null {
  if (!a || !b) return null;
  return {
    forwardTokens: b.forwardTokens - a.forwardTokens,
    forwardCalls: b.forwardCalls - a.forwardCalls,
    naiveTokens: b.naiveTokens - a.naiveTokens,
    nScored: b.nScored - a.nScored,
  };
}

function saving(c: ScoringCounters | null): number | null {
  return c && c.naiveTokens > 0 ? 1 - c.forwardTokens / c.naiveTokens : null;
}

/**
 * Scores every item under every condition into the store, resumably: items already scored are skipped, a killed session loses only
 * in-flight work. Throws a CapabilityError when `neut_pad` meets a scorer without token counts.
 */
export async function runProbe(
  scorer: ProbeScorer,
  store: ProbeStore,
  items: readonly ProbeItem[],
  options: RunProbeOptions,
): Promise<ProbeSessionResult> {
  const { runId, conditions } = options;
  if (conditions.includes('neut_pad') && !scorer.countTokens) {
    throw new CapabilityError(
      `${scorer.model.label}: neut_pad needs this model's token counts, and this backend has no tokenizer the probe can call; drop neut_pad or use a gguf:/vllm: model`,
    );
  }
  const done = await store.scoredKeys(runId);
  const paddings = conditions.includes('neut_pad') ? await store.paddings(runId) : new Map();
  const session = await store.startSession(runId, {
    conditions,
    itemsSource: options.itemsSource,
    itemsSha256: options.itemsSha256,
    nItems: items.length,
    backend: await scorer.info(),
  });
  const t0 = performance.now();
  const c0 = scorer.counters();
  const passes = conditionPasses(conditions);
  const total = passes.length * items.length;
  let finished = 0;
  let nScored = 0;
  let nPresent = 0;
  let nUnavailable = 0;
  let status: ProbeSessionResult['status'] = 'complete';
  const result = (): ProbeSessionResult => {
    const counters = diffCounters(c0, scorer.counters());
    return {
      runId,
      session,
      status,
      nScored,
      nPresent,
      nUnavailable,
      counters,
      cacheSaving: saving(counters),
      seconds: (performance.now() - t0) / 1000,
    };
  };
  try {
    outer: for (const [p, pass] of passes.entries()) {
      for (const item of items) {
        let padded: string | null = null;
        for (const condition of pass) {
          if (options.signal?.aborted) {
            status = 'interrupted';
            break outer;
          }
          const cands = candidatesFor(item, condition);
          const need = cands.filter(([name]) => !done.has(scoreKey(item.item_id, condition, name)));
          nPresent += cands.length - need.length;
          if (!need.length) continue;
          if (!conditionAvailable(item, condition)) {
            nUnavailable++;
            continue;
          }
          if (condition === 'neut_pad' && padded === null) {
            const stored = paddings.get(item.item_id);
            const pad = stored ?? (await lengthMatchedNeutral(item, scorer.countTokens!));
            if (!stored) {
              await store.savePadding(runId, item.item_id, pad);
              paddings.set(item.item_id, pad);
            }
            padded = pad.observation;
          }
          const messages = buildConditionMessages(item, condition, { neutralPadded: padded });
          const scores = await scorer.scoreCandidates(
            messages,
            need.map(([, text]) => text),
          );
          const rows: ScoreRecord[] = need.map(([name], i) => {
            const s = guardScore(scores[i], `${scorer.model.label}: item ${item.item_id}, condition ${condition}, candidate ${name}`);
            return {
              item_id: item.item_id,
              condition,
              candidate: name,
              logprob: s.logprob,
              n_tokens: s.nTokens,
              n_argmax_match: s.nArgmaxMatch,
              is_greedy: s.isGreedy,
              ctx_tokens: s.ctxTokens,
            };
          });
          nScored += await store.insertScores(runId, session, rows, done);
          for (const [name] of need) done.add(scoreKey(item.item_id, condition, name));
        }
        finished++;
        const counters = diffCounters(c0, scorer.counters());
        options.onProgress?.({
          pass: p + 1,
          passes: passes.length,
          done: finished,
          total,
          scored: nScored,
          elapsedMs: performance.now() - t0,
          cacheSaving: saving(counters),
        });
      }
    }
  } catch (e) {
    const r = result();
    await store.endSession(runId, session, {
      status: 'failed',
      nScored: r.nScored,
      nUnavailable: r.nUnavailable,
      counters: r.counters,
      seconds: r.seconds,
    });
    throw e;
  }
  const r = result();
  await store.endSession(runId, session, {
    status,
    nScored: r.nScored,
    nUnavailable: r.nUnavailable,
    counters: r.counters,
    seconds: r.seconds,
  });
  return r;
}
