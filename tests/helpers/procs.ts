/** Process checks through /proc (Linux), for tests that must see children come and go. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import type { Session } from "./workbench.ts";

/** State and parent of a process, or undefined once it is gone. */
function readStat(pid: number | string): { state: string; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/** True while the process exists and is not a zombie (a zombie has already exited). */
export function isAlive(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== "Z";
}

/** Waits until none of the pids is alive, or the time is up; returns the ones still alive. */
export async function waitGone(pids: number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    alive = alive.filter(isAlive);
  }
  return alive;
}

/**
 * Waits (bounded) until the process is reaped: gone from /proc, not merely a zombie. A zombie has
 * exited but its parent (the workbench) may not have noticed yet. True if it went in time.
 */
export async function waitReaped(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (existsSync(`/proc/${pid}`)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

/** Live descendants of a process (children, grandchildren, ...) with their command lines. */
export function descendants(root: number): { pid: number; cmdline: string }[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat && stat.state !== "Z") parentOf.set(Number(entry), stat.ppid);
  }
  const found: { pid: number; cmdline: string }[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const parent = frontier.pop()!;
    for (const [pid, ppid] of parentOf) {
      if (ppid !== parent) continue;
      frontier.push(pid);
      try {
        found.push({ pid, cmdline: readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim() });
      } catch {
        // Gone meanwhile.
      }
    }
  }
  return found;
}

/** Process ids of the fixture servers running under the workbench. */
export function fixturePids(session: Session): number[] {
  return descendants(session.pid).filter((p) => p.cmdline.includes("fixture-server.ts")).map((p) => p.pid)
    .sort((a, b) => a - b);
}
