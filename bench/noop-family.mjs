// A family that verifies nothing (`--plugin bench/noop-family.mjs`): every text passes with a
// constant state. bench/verify-e2e.ts runs the same rows through it to measure what a row costs
// outside verification (reading, parsing, building the case, serialising, writing).
export const noopFamily = {
  name: 'noop',
  version: '1',
  description: 'verifies nothing (benchmarks only)',
  verify: () => ({ joint_success: true, violation_vector: [0] }),
  energy: () => 0,
  feedback: () => '',
  initialPrompt: () => '',
  maxNewTokens: () => 1,
  validateCase: () => [],
};
