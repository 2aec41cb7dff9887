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
