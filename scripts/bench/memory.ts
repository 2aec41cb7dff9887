/** Resident memory of one process (not its children), from Linux's /proc. */
import { readFileSync } from "node:fs";

/**
 * VmRSS of `pid` in bytes, or with "VmHWM" its peak since it started (or with "RssAnon" / "RssFile" its
 * private memory / the pages of files it maps, such as its own executable); NaN where /proc is not there
 * (the figure is then left blank).
 */
export function residentBytes(pid: number, field: "VmRSS" | "VmHWM" | "RssAnon" | "RssFile" = "VmRSS"): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = status.match(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m"));
    return kib ? Number(kib[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
