/** CPU time of one process (not its children), from Linux's /proc. */
import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const CLOCK_TICKS_PER_S = 100;

/** utime + stime of a process, and stime alone (the kernel's share: reads, writes, wake-ups), in seconds. */
export function cpuSeconds(pid: number): { total: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return { total: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S, system: Number(fields[12]) / CLOCK_TICKS_PER_S };
}

/**
 * utime + stime of a process's main thread alone (its task whose id is the pid), in seconds: the
 * thread that runs the JavaScript, apart from the JIT's, the allocator's and the HTTP client's.
 */
export function mainThreadCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S;
}
