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

/** taskkill takes well under a second; one that takes longer than this is not waited for. */
export const TASKKILL_DEADLINE_MS = 5_000;

/** How an adapter runs taskkill, and ends the child alone. */
export interface WindowsKiller {
  /** Starts the command and resolves with its exit code; throws when it cannot start. */
  run(command: string, args: string[]): Promise<number | null>;
  /** Ends the child alone (TerminateProcess); nothing once it has exited. */
  killChild(): void;
}

/**
 * Windows: taskkill ends the child's tree. Where it cannot start, fails (Wine 8's taskkill rejects
 * `/t`; on Windows, access denied) or has not ended by the deadline, the child alone is ended: else
 * a server that ignores the end of its stdin would keep the workbench from ever exiting (issue 51).
 * Resolves once that is decided.
 */
export async function killTreeOnWindows(pid: number, killer: WindowsKiller, deadlineMs = TASKKILL_DEADLINE_MS): Promise<void> {
  const { command, args } = windowsTreeKill(pid);
  let ended: Promise<number | null>;
  try {
    ended = killer.run(command, args);
  } catch {
    killer.killChild();
    return;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(resolve, deadlineMs, "late")));
  const code = await Promise.race([ended.catch(() => null), late]);
  clearTimeout(timer);
  if (code !== 0) killer.killChild();
}

/** The signals that end a process on Windows, where taskkill stands in for them. */
export function endsTreeOnWindows(signal: Signal): boolean {
  return signal === "SIGTERM" || signal === "SIGKILL";
}
