/** Resident memory of one process (not its children), from Linux's /proc. */
import { readFileSync } from "node:fs";

/** VmRSS of `pid` in bytes; NaN where /proc is not there (the figure is then left blank). */
export function residentBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = status.match(/^VmRSS:\s+(\d+)\s+kB/m);
    return kib ? Number(kib[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
