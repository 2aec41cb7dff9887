/** How much each figure measures: the full run, and `--quick` (same table, fewer iterations). */
export interface Plan {
  /** Fresh processes for the start-up figure. */
  startupRuns: number;
  /** Fresh workbenches for each open_toolbox figure. */
  openRuns: number;
  /** Calls before the timed ones, so that both sides are past their JIT warm-up. */
  warmupCalls: number;
  sequentialCalls: number;
  concurrentCalls: number;
  inFlight: number;
  blobMiB: number[];
  blobRepeats: number;
  /** Fresh workbenches that each relay one 32 MiB result, for its peak memory. */
  peakRuns: number;
  /**
   * Each call figure alternates direct and workbench in this many rounds: drift on a shared
   * machine then hits both sides alike.
   */
  rounds: number;
}

export const FULL: Plan = {
  startupRuns: 10,
  openRuns: 5,
  warmupCalls: 200,
  sequentialCalls: 2_000,
  concurrentCalls: 20_000,
  inFlight: 64,
  blobMiB: [1, 8, 32, 64],
  blobRepeats: 5,
  peakRuns: 3,
  rounds: 4,
};

export const QUICK: Plan = {
  startupRuns: 5,
  openRuns: 3,
  warmupCalls: 50,
  sequentialCalls: 200,
  concurrentCalls: 2_000,
  inFlight: 64,
  blobMiB: [1, 8, 32],
  blobRepeats: 3,
  peakRuns: 2,
  rounds: 2,
};

/** Upper bounds on wall time, whatever the machine does: a loop past its budget stops and says so. */
export const BUDGET_MS = {
  sequential: 60_000,
  concurrent: 120_000,
  blobCall: 120_000,
  openToolbox: 60_000,
};
