// Condition → chat messages (docs/harness.md §3.3). Only the failure record differs between conditions:
// the system prompt, the goal and the successful prefix steps are byte-identical in all of them.
import type { ChatMessage } from '../../models/types.ts';
import { abstractFailureNote, ABSTRACT_MIN_NOTE, NEGATIVE_INSTRUCTION, OBSERVATION_PREFIX } from '../../remedy/failure-record.ts';
import { errorGloss } from '../../envs/toolshed/errors.ts';
import { markErrorClass, UserError } from '../../core/errors.ts';
import { DISTRACTOR_CONDITIONS, OWN_PASS_CONDITIONS, type CandidateName, type Condition, type ProbeItem } from './probe-types.ts';

interface ConditionOptions {
  /** The length-matched neutral observation (required by `neut_pad`; computed per model). */
  neutralPadded?: string | null;
  observationPrefix?: string;
}

/** A condition that cannot be built for this item (e.g. `fail_other` without a distractor). */
export class ConditionUnavailableError extends UserError {
  /** Whether `e` is a ConditionUnavailableError, from any copy of revloop. */
  static override readonly isInstance = markErrorClass<ConditionUnavailableError>(this, 'revloop.error.ConditionUnavailableError');
  readonly itemId: string;
  readonly condition: Condition;

  constructor(message: string, options: { itemId: string; condition: Condition; cause?: unknown }) {
    super(message, options);
    this.itemId = options.itemId;
    this.condition = options.condition;
    this.name = 'ConditionUnavailableError';
  }
}

/** Why `item` cannot take `condition` (`reason`: what the condition needs). */
function unavailable(item: ProbeItem, condition: Condition, reason: string): ConditionUnavailableError {
  return new ConditionUnavailableError(`item ${item.item_id}: condition ${condition} ${reason}`, { itemId: item.item_id, condition });
}

/**
 * The counterfactual transcript of an item under a condition (docs/harness.md §3): the context whose next action the probe scores. Throws
 * a ConditionUnavailableError when the item cannot take the condition.
 */
export function buildConditionMessages(item: ProbeItem, condition: Condition, options: ConditionOptions = {}): ChatMessage[] {
  const prefix = options.observationPrefix ?? OBSERVATION_PREFIX;
  const system = condition === 'fail_instr' ? `${item.system_prompt}\n${NEGATIVE_INSTRUCTION}` : item.system_prompt;
  const msgs: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: item.goal },
  ];
  const pushOkSteps = () => {
    const n = Math.min(item.prefix_actions.length, item.prefix_observations.length); // zip()
    for (let i = 0; i < n; i++) {
      msgs.push({ role: 'assistant', content: item.prefix_actions[i] });
      msgs.push({ role: 'user', content: `${prefix}${item.prefix_observations[i]}` });
    }
  };
  const pushFailure = (obs: string, repeats = 1) => {
    for (let k = 0; k < repeats; k++) {
      msgs.push({ role: 'assistant', content: item.failed_action });
      msgs.push({ role: 'user', content: `${prefix}${obs}` });
    }
  };

  if (condition === 'fail_early') {
    pushFailure(item.obs_fail);
    pushOkSteps();
    return msgs;
  }
  pushOkSteps();
  switch (condition) {
    case 'pre':
      break;
    case 'fail':
    case 'fail_instr':
      pushFailure(item.obs_fail);
      break;
    case 'succ':
      pushFailure(item.obs_success);
      break;
    case 'neut':
      pushFailure(item.obs_neutral);
      break;
    case 'neut_pad':
      if (options.neutralPadded == null) throw unavailable(item, condition, 'needs a length-matched neutral observation');
      pushFailure(options.neutralPadded);
      break;
    case 'abstract':
      msgs.push({ role: 'user', content: abstractFailureNote({ tool: item.tool, errorType: item.error_type }, 1, errorGloss) });
      break;
    case 'abstract_min':
      msgs.push({ role: 'user', content: ABSTRACT_MIN_NOTE });
      break;
    case 'fail_other': {
      if (!item.distractors.length) throw unavailable(item, condition, 'needs a distractor action (the item has none)');
      msgs.push({ role: 'assistant', content: item.distractors[0] });
      msgs.push({ role: 'user', content: `${prefix}${item.obs_fail_other || item.obs_fail}` });
      break;
    }
    case 'fail_echo':
      pushFailure(item.obs_fail_echo);
      break;
    case 'fail_terse':
      pushFailure(item.obs_fail_terse);
      break;
    case 'fail_verbose':
      pushFailure(item.obs_fail_verbose);
      break;
    case 'fail_k2':
      pushFailure(item.obs_fail, 2);
      break;
    case 'fail_k3':
      pushFailure(item.obs_fail, 3);
      break;
    default: {
      const never: never = condition;
      throw new UserError(`unknown condition ${String(never)}`);
    }
  }
  return msgs;
}

/** Whether the condition can be built for the item (fail_other needs a distractor). */
export function conditionAvailable(item: ProbeItem, condition: Condition): boolean {
  return condition !== 'fail_other' || item.distractors.length > 0;
}

/** The candidates scored under a condition: failed and gold, plus the distractors under pre/fail. */
export function candidatesFor(item: ProbeItem, condition: Condition): Array<[CandidateName, string]> {
  const out: Array<[CandidateName, string]> = [
    ['failed', item.failed_action],
    ['gold', item.gold_action],
  ];
  if (DISTRACTOR_CONDITIONS.has(condition)) {
    item.distractors.slice(0, 2).forEach((d, i) => out.push([`distractor${i}` as CandidateName, d]));
  }
  return out;
}

/** Passes over the items: every condition except fail_instr first, then fail_instr alone. */
export function conditionPasses(conditions: readonly Condition[]): Condition[][] {
  const plain = conditions.filter((c) => !OWN_PASS_CONDITIONS.has(c));
  const own = conditions.filter((c) => OWN_PASS_CONDITIONS.has(c));
  return [plain, own].filter((p) => p.length > 0);
}
