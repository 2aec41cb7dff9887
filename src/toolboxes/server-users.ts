/**
 * The sessions one shared server works for, as one Upstream: what they declared (the same for
 * all, or they would not share it), the most verbose log level any of them set, and any of them
 * changing its roots. A question goes to the one session there is; with several, the relay takes
 * it to the session of the call that asked (see downstream/relay.ts), and one that belongs to no
 * call is refused rather than put in front of the wrong person. A notification outside a call
 * goes to every session, each at its own level.
 */
import { type ClientCapabilities, ErrorCode, type LoggingLevel, type RequestId } from "../protocol/sdk.ts";
import { Listeners, LOG_LEVELS, type Upstream, type UpstreamRequestOptions } from "../protocol/upstream.ts";
import { errorWithCode } from "../protocol/errors.ts";

export class ServerUsers implements Upstream {
  /** What the server is given: the sessions' own capabilities for what is relayed (mirroredCapabilities). */
  readonly capabilities: ClientCapabilities;
  /** Each session, with the unsubscribes of its level and roots listeners. */
  readonly #members = new Map<Upstream, (() => void)[]>();
  readonly #levelListeners = new Listeners<[LoggingLevel]>();
  readonly #rootsListeners = new Listeners();

  constructor(capabilities: ClientCapabilities) {
    this.capabilities = capabilities;
  }

  sessions(): readonly Upstream[] {
    return [...this.#members.keys()];
  }

  add(session: Upstream): void {
    if (this.#members.has(session)) return;
    const before = this.logLevel;
    this.#members.set(session, [
      session.onLogLevel(() => this.#levelSet()),
      session.onRootsChanged(() => {
        this.#rootsListeners.emit();
      }),
    ]);
    if (this.logLevel !== before) this.#levelSet();
  }

  /** The session stopped using the server: a quieter level may do now. */
  delete(session: Upstream): void {
    const unsubscribes = this.#members.get(session);
    if (!unsubscribes) return;
    const before = this.logLevel;
    this.#members.delete(session);
    for (const unsubscribe of unsubscribes) unsubscribe();
    if (this.logLevel !== before && this.logLevel !== undefined) this.#levelSet();
  }

  /** The most verbose level any session set: each session then gets only what its own admits. */
  get logLevel(): LoggingLevel | undefined {
    let most: number | undefined;
    for (const session of this.#members.keys()) {
      const at = session.logLevel === undefined ? -1 : LOG_LEVELS.indexOf(session.logLevel);
      if (at !== -1 && (most === undefined || at < most)) most = at;
    }
    return most === undefined ? undefined : LOG_LEVELS[most];
  }

  request(method: string, params: Record<string, unknown> | undefined, options: UpstreamRequestOptions): Promise<Record<string, unknown>> {
    const sessions = this.sessions();
    if (sessions.length === 1) return sessions[0].request(method, params, options);
    if (sessions.length === 0) return Promise.reject(new Error("No client is connected"));
    return Promise.reject(
      errorWithCode(
        ErrorCode.InvalidRequest,
        `The server is shared by ${sessions.length} sessions and the question belongs to no call of one of them`,
      ),
    );
  }

  /** Outside a call: to every session (a session leaves out what its level does not admit). */
  async notify(method: string, params: Record<string, unknown> | undefined, relatedRequestId?: RequestId): Promise<void> {
    const sessions = this.sessions();
    // A request id means something to its own session only.
    const related = sessions.length === 1 ? relatedRequestId : undefined;
    const sent = await Promise.allSettled(sessions.map((session) => session.notify(method, params, related)));
    const failed = sent.find((outcome) => outcome.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }

  onLogLevel(listener: (level: LoggingLevel) => void): () => void {
    return this.#levelListeners.add(listener);
  }

  onRootsChanged(listener: () => void): () => void {
    return this.#rootsListeners.add(listener);
  }

  #levelSet(): void {
    const level = this.logLevel;
    if (level === undefined) return;
    this.#levelListeners.emit(level);
  }
}
