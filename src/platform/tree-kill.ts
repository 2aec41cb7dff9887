/** Ending a child together with its descendants, shared by the adapters (no runtime APIs here). */
import type { Signal } from "./types.ts";

/** How an adapter sends a signal, and how it tells "no such process" from other failures. */
export interface SignalSender {
  send(target: number, signal: Signal): void;
  isGone(error: unknown): boolean;
}

/**
 * POSIX: signals the process group the child leads (a negative pid), so its descendants go too.
 * Falls back to the child alone when the group is gone (the child moved to a group of its own);
 * a child that is gone as well is left alone. Once the child has exited only its group is
 * signalled: what it left behind still goes, and its pid, free for reuse, is not touched.
 * Other failures (such as EPERM) are thrown.
 */
export function signalProcessGroup(pid: number, signal: Signal, sender: SignalSender, childExited = false): void {
  for (const target of childExited ? [-pid] : [-pid, pid]) {
    try {
      sender.send(target, signal);
      return;
    } catch (error) {
      if (!sender.isGone(error)) throw error;
    }
  }
}

/** Windows has no process groups to signal: taskkill ends the child's whole tree, forcibly. */
export function windowsTreeKill(pid: number): { command: "taskkill"; args: string[] } {
  return { command: "taskkill", args: ["/pid", String(pid), "/t", "/f"] };
}

/** The signals that end a process on Windows, where taskkill stands in for them. */
export function endsTreeOnWindows(signal: Signal): boolean {
  return signal === "SIGTERM" || signal === "SIGKILL";
}
