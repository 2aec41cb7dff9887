/** The peak resident memory of a workbench while a test loads it, read from Linux's /proc. */
import { residentBytes } from "../../scripts/bench/memory.ts";

export const MiB = 1024 * 1024;
/** Past this the load stops at once: the figure is already failed, and the machine is shared. */
export const ABORT_MIB = 1_500;

/** Samples VmHWM every 100 ms until stopped; calls onRunaway (once a sample) past ABORT_MIB. */
export function watchPeak(pid: number, onRunaway: () => void): { stop(): number } {
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, residentBytes(pid, "VmHWM"));
    if (peak > ABORT_MIB * MiB) onRunaway();
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, residentBytes(pid, "VmHWM")) / MiB;
    },
  };
}

/**
 * The timeout of a test that moves hundreds of MiB: above its own 120 s waits, so that on a loaded
 * machine it ends by its assertions, not by the runner's 60 s (seen: two suites and a CPU-bound
 * process on 2 cores; what a timed-out test left running then failed the tests after it).
 */
export const HEAVY_TIMEOUT_MS = 240_000;
