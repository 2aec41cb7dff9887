/** Noticing that the process that started us has gone, shared by the adapters (no runtime APIs here). */

/** How an adapter looks at its parent. */
export interface ParentProbe {
  /** Our parent's pid as of now, where the OS tells it cheaply (Linux); undefined elsewhere. */
  currentPpid(): number | undefined;
  /** Whether a process with this pid still exists (a signal 0). */
  exists(pid: number): boolean;
}

/**
 * Returns a cheap check, meant to be polled, that is true while the parent we had at start-up is
 * alive. Where the current parent is known, a change means the parent died and we were re-parented
 * (to init or a subreaper); elsewhere the original parent's pid is probed instead, which a reused
 * pid could fool, but only towards "alive".
 */
export function watchParent(originalPpid: number, probe: ParentProbe): () => boolean {
  return () => {
    const current = probe.currentPpid();
    return current === undefined ? probe.exists(originalPpid) : current === originalPpid;
  };
}

/** The parent pid in a /proc/<pid>/stat line: "pid (comm) state ppid ...", comm may hold ") ". */
export function ppidFromStat(stat: string): number | undefined {
  const field = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1];
  return field !== undefined && /^\d+$/.test(field) ? Number(field) : undefined;
}
