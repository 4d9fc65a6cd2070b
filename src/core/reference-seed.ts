// The reference's seed, the one home of the number: its API endpoint seed, and the default of every
// seeded stream revloop draws to match it (the bootstrap, ToolShed's worlds and tasks, the agent
// study's decoding, the tiny test model's weights).

/** The reference's seed, 20260808. */
export const REFERENCE_SEED = 20260808;
