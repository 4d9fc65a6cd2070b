// Recording a `revise()` loop in a revloop store (docs/revise.md §7): a sink of the kernel
// (`LoopSink`) that writes one run of kind `revise` with one trajectory through the engine's own
// recorder (src/engine/recorder.ts), so `runs`, `analyze`, `report` and `audit` read it like any
// revision run. The plan freezes the task (prompt messages), the verifier's identity, the
// controller and the policy.
import { hostname } from 'node:os';
import type { LoopEnd, LoopSink, VerifyResult } from '@revloop/revise';
import { REVLOOP_VERSION } from '../core/version.ts';
import { canonicalJson, sha256Hex } from '../core/util/hash.ts';
import type { ConstraintCase } from '../core/verify/types.ts';
import type { ChatMessage, Model } from '../models/types.ts';
import { recordedCapabilities } from '../models/capabilities.ts';
import { StoreRecorder } from '../engine/recorder.ts';
import { messagesSha256, type AttemptStart } from '../engine/loop.ts';
import { casesSha256, planSha256, type RunPlan } from '../store/plan.ts';
import { planFormat } from '../store/run-kinds.ts';
import { REVISE_KIND } from '../engine/trajectory-kinds.ts';
import { openStore, type RunStore } from '../store/store.ts';
import type { TrajectoryRunPlanned } from '../store/events.ts';
import { UserError } from '../core/errors.ts';
import type { BanKind, LoopRequest, RevisionPolicy } from '@revloop/revise';
import type { VerifierState } from '../core/verify/types.ts';

export interface RecordingRequest {
  store: RunStore | string;
  runId?: string;
  caseId: string;
  model: Model;
  initial: readonly ChatMessage[];
  /** The family recorded for the trajectory: a registered family, or `revise` for the caller's function. */
  family: { name: string; version: string; verifierId: string };
  /** The registered family's case, when the verifier is one. */
  familyCase: ConstraintCase | null;
  policy: RevisionPolicy;
  feedbackName: string;
  /** The ban applied (`banKindFor`, packages/revise/src/policy/revision-policy.ts), null for none. */
  banned: BanKind | null;
  revisions: number;
  maxTokens: number | null;
  temperature: number | null;
  seed: number | null;
}

export interface Recording {
  runId: string;
  store: RunStore;
  /** The kernel's sink that writes the loop (pass it as revise()'s `sink`). */
  sink: LoopSink<VerifyResult>;
  close(): Promise<void>;
}

/** The policy as a message-policy name in the plan, e.g. `revise:history=reset-on-recurrence,feedback=verbatim,on-cycle=stop`. */
export function revisePolicyName(p: RevisionPolicy, feedbackName: string): string {
  return `revise:history=${p.history},feedback=${feedbackName},on-cycle=${p.onCycle}`;
}

export async function openRecording(req: RecordingRequest): Promise<Recording> {
  const owned = typeof req.store === 'string';
  const store = typeof req.store === 'string' ? await openStore(req.store) : req.store;
  const prompt = req.initial.map((m) => ({ role: m.role, content: m.content }));
  const c: ConstraintCase = req.familyCase ?? {
    id: req.caseId,
    family: req.family.name,
    source: 'revise',
    instruction: prompt.filter((m) => m.role === 'user').at(-1)?.content ?? '',
    row: { messages: prompt },
  };
  const cases = [c];
  const window = req.policy.history === 'reset-on-recurrence' ? 'full' : req.policy.history;
  const plan: RunPlan = {
    format: planFormat(REVISE_KIND.planVersion),
    kind: REVISE_KIND.kind,
    case_set: { format: 'revise', total: 1, limit: null, count: 1, file_sha256: null, cases_sha256: casesSha256(cases), manifest: null },
    controller: {
      label: req.model.label,
      spec: req.model.spec,
      simulated: req.model.capabilities.simulated,
      capabilities: recordedCapabilities(req.model.capabilities),
      generation: { temperature: req.temperature, seed: req.seed, extra_body: null },
    },
    protocol: {
      name: `revise+history=${req.policy.history},feedback=${req.feedbackName}${req.banned ? `,ban=${req.banned}` : ''},on-cycle=${req.policy.onCycle}`,
      budget: req.revisions,
      history: window,
      variant: 'baseline',
      temperature: req.temperature,
      seed: req.seed,
      max_new_tokens: 'family',
      message_policy: revisePolicyName(req.policy, req.feedbackName),
      ban_provider: req.banned,
      stop_rule: req.policy.onCycle === 'stop' ? 'first-joint-success-budget-or-cycle' : 'first-joint-success-or-budget',
    },
    families: {
      [req.family.name]: {
        version: req.family.version,
        prompt_sha256: sha256Hex(canonicalJson([prompt])),
        verifier_sha256: sha256Hex(req.family.verifierId),
      },
    },
  };
  const planned: TrajectoryRunPlanned = { plan, cases, per_case: null, plan_sha256: planSha256(plan, cases, null) };
  const runId = req.runId ?? `revise-${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${planned.plan_sha256.slice(0, 8)}`;
  if (await store.getPlanned(runId)) {
    if (owned) await store.close();
    throw new UserError(`run '${runId}' already exists in ${store.location}; a revise() loop is recorded once — pass another runId`);
  }
  await store.createRun(runId, planned);
  await store.append(runId, [
    {
      type: 'session_started',
      payload: {
        kind: 'revise',
        revloop_version: REVLOOP_VERSION,
        pid: process.pid,
        host: hostname(),
        cases_path: null,
        options: { max_tokens: req.maxTokens },
        pending: 1,
      },
    },
  ]);
  const recorder = new StoreRecorder(store, runId, 0);
  const end = async (kind: 'completed' | 'incomplete', rounds: number, reason: string) => {
    await store.flush();
    if (kind === 'completed')
      await store.append(runId, [
        { type: 'trajectory_completed', caseIndex: 0, revision: rounds - 1, payload: { stop: 'limit', rounds, final_joint: false } },
      ]);
    else await store.append(runId, [{ type: 'trajectory_incomplete', caseIndex: 0, revision: rounds, payload: { reason } }]);
  };
  const startOf = (index: number, request: LoopRequest): AttemptStart => {
    const { messages, maxTokens, bannedSequences, bannedAnswers } = request;
    const start = {
      revision: index,
      messagesSha256: messagesSha256(messages),
      messageCount: messages.length,
      maxTokens: maxTokens ?? null,
    };
    return bannedAnswers ? { ...start, bannedAnswers } : { ...start, bannedSequences };
  };
  const why = (e: LoopEnd): string =>
    e.status === 'aborted'
      ? 'aborted by the caller'
      : e.status === 'incomplete'
        ? e.cause === 'verifier'
          ? e.message
          : `generation ${e.index}: ${e.message}`
        : e.detail;
  /** Stops the stop rule knows (success, budget, cycle) complete the trajectory; a token, money or time limit is `limit`. */
  const STOPS: Record<string, 'success' | 'budget' | 'cycle'> = { success: 'success', revisions: 'budget', cycle: 'cycle' };
  const sink: LoopSink<VerifyResult> = {
    started: (s) => recorder.attemptStarted(startOf(s.index, s.request)),
    attempt: (index, n, record) => {
      if (!record.ok) recorder.attemptFinished(index, n, record);
    },
    drafted: async (r, e, generation, next) => {
      const vr = r.state;
      const state = (vr.state ?? {
        joint_success: vr.ok,
        violation_vector: vr.violations.map(() => 1),
        violations: vr.violations,
        ...(vr.score !== undefined ? { score: vr.score } : {}),
      }) as unknown as VerifierState;
      const stop = e?.status === 'stopped' ? (STOPS[e.reason] ?? null) : null;
      const round = { revision: r.index, text: r.draft, state, energy: r.measure, joint: r.ok, feedback: next ? r.feedback : null };
      const nextStart = next ? startOf(next.index, next.request) : null;
      await recorder.draftAccepted(round, stop, generation.used, nextStart);
      // A limit or a stop condition of the caller's: the trajectory is complete, stopped by a `limit`.
      if (e && !stop) await end('completed', r.index + 1, why(e));
    },
    ended: async (e, rounds, generation) => {
      if (e.status === 'incomplete') {
        await recorder.incomplete(e.index, why(e));
        return;
      }
      await end('incomplete', generation ? generation.index : rounds.length, why(e));
    },
  };
  return {
    runId,
    store,
    sink,
    async close() {
      await store.flush();
      if (owned) await store.close();
    },
  };
}
