/** The machine a run was on: figures mean little without it. */
import { readFileSync } from "node:fs";
import os from "node:os";

export function describeMachine(): Record<string, string | number> {
  return {
    cpus: os.cpus().length,
    cpuModel: cpuModel(),
    memTotalGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

/** The 1-minute load average: on a shared machine, how noisy the run was. */
export function loadAverage(): number {
  return Math.round(os.loadavg()[0] * 100) / 100;
}

function cpuModel(): string {
  try {
    const model = readFileSync("/proc/cpuinfo", "utf8").match(/^model name\s*:\s*(.+)$/m);
    if (model) return model[1].trim();
  } catch {
    // Not Linux: the runtime's own answer below.
  }
  return os.cpus()[0]?.model ?? "unknown";
}
