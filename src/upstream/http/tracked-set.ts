/**
 * What the endpoint keeps of 2025 sessions and 2026 hubs alike: each by its key, whose it is and
 * when it was last in use, so that the endpoint can count them (all, or one client's), end the
 * idle ones and end them all.
 */

/** A live session or hub as the endpoint tracks it. */
export interface Tracked {
  /** The client's name, for the bound on one client's sessions. */
  readonly name: string;
  /** Requests (and streams) not answered yet: one with any is never idle. */
  inFlight: number;
  lastUsed: number;
}

export abstract class TrackedSet<T extends Tracked> {
  protected readonly items = new Map<string, T>();

  get size(): number {
    return this.items.size;
  }

  /** The live ones of the client of that name. */
  countOf(name: string): number {
    let count = 0;
    for (const item of this.items.values()) if (item.name === name) count++;
    return count;
  }

  /** Ends those idle since `before` (nothing in flight, no request since); how many. */
  async expire(before: number): Promise<number> {
    const idle = [...this.items.values()].filter((item) => item.inFlight === 0 && item.lastUsed < before);
    await Promise.all(idle.map((item) => this.end(item)));
    return idle.length;
  }

  /** Ends those of the clients `revoked` names (a token revoked while serving); how many. */
  async endClients(revoked: (name: string) => boolean): Promise<number> {
    const gone = [...this.items.values()].filter((item) => revoked(item.name));
    await Promise.all(gone.map((item) => this.end(item)));
    return gone.length;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.items.values()].map((item) => this.end(item)));
  }

  /** Ends one: it leaves the set, and its session closes. */
  protected abstract end(item: T): Promise<void>;
}
