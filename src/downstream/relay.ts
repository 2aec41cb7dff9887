/**
 * One downstream session's side of the relay: the SDK Client declares to the server what the
 * client in front of us declared, and what the server asks of it (elicitation, sampling, roots)
 * or tells it (log messages, the end of a URL elicitation) goes to that client and back. A request
 * made during a use_tool call to the server belongs to that call (question-owner.ts says which):
 * it is sent as related to it, the call's idle timer does not run while the client answers, and it
 * is cancelled at the client when the call is given up (cancelled or timed out).
 */
import {
  type Client,
  type ClientCapabilities,
  CreateMessageRequestSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  type LoggingLevel,
  LoggingMessageNotificationSchema,
  McpError,
  type RequestId,
} from "../protocol/sdk.ts";
import { guessedOwner, notificationOwner, questionOwner, type ServerCalls, taskPlaced } from "./question-owner.ts";
import type { CallInFlight } from "./call-lane.ts";
import { errorWithCode, messageOf, passedOn } from "../protocol/errors.ts";
import type { Upstream } from "../protocol/upstream.ts";
import { mirroredCapabilities } from "./forwarded-capabilities.ts";

/** Calls one question may go with at most, as each carrier ends before it is answered. */
const MAX_CARRIERS = 8;
/** How long a task's question waits for its call to learn the task's id (a few turns, as a rule). */
const TASK_ID_WAIT_MS = 2_000;

export interface RelayTarget {
  toolbox: string;
  server: string;
  /** `false` keeps the server on its own arguments: it is not told the client's roots. */
  roots: boolean;
  /** How long a request waits on the client at most (the server's maxCallTimeMs). */
  requestTimeoutMs: number;
}

export class DownstreamRelay {
  readonly capabilities: ClientCapabilities;
  readonly #upstream: Upstream;
  readonly #target: RelayTarget;
  readonly #calls: ServerCalls;
  readonly #log: (text: string) => void;
  readonly #unsubscribe: (() => void)[] = [];

  constructor(
    upstream: Upstream,
    target: RelayTarget,
    calls: ServerCalls,
    log: (text: string) => void,
  ) {
    this.#upstream = upstream;
    this.#target = target;
    this.#calls = calls;
    this.#log = log;
    this.capabilities = mirroredCapabilities(upstream.capabilities, target.roots);
  }

  /** Registers the handlers on a Client made with `capabilities`, before it connects. */
  handle(client: Client): void {
    const { elicitation, sampling, roots } = this.capabilities;
    if (elicitation) {
      client.setRequestHandler(ElicitRequestSchema, (request, extra) => this.#relay(request, extra));
      if (elicitation.url) {
        client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => this.#notify(notification));
      }
    }
    if (sampling) client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => this.#relay(request, extra));
    if (roots) client.setRequestHandler(ListRootsRequestSchema, (request, extra) => this.#relay(request, extra));
    client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => {
      const prefix = `${this.#target.toolbox}/${this.#target.server}`;
      return this.#notify({
        method: "notifications/message",
        params: { ...params, logger: params.logger ? `${prefix}/${params.logger}` : prefix },
      });
    });
  }

  /** The client initialized: it gets the level the client set, now and whenever it sets another. */
  connected(client: Client): void {
    const setLevel = (level: LoggingLevel) => {
      if (!client.getServerCapabilities()?.logging) return;
      client.setLoggingLevel(level).catch((error) => this.#log(`setting the logging level failed: ${messageOf(error)}`));
    };
    const level = this.#upstream.logLevel;
    if (level) setLevel(level);
    this.#unsubscribe.push(this.#upstream.onLogLevel(setLevel));
    if (this.capabilities.roots?.listChanged) {
      this.#unsubscribe.push(this.#upstream.onRootsChanged(() => {
        client.sendRootsListChanged().catch((error) => this.#log(`passing on the roots change failed: ${messageOf(error)}`));
      }));
    }
  }

  /** The session ended: nothing more reaches its Client. */
  dispose(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  async #relay(
    request: { method: string; params?: Record<string, unknown> },
    { requestId, signal }: { requestId: RequestId; signal: AbortSignal },
  ) {
    await taskPlaced(request.params?._meta, this.#calls, TASK_ID_WAIT_MS);
    const { call, guessed } = questionOwner({ id: requestId, meta: request.params?._meta }, this.#calls);
    const session = this.#sessionAsked(call, guessed);
    let carrier = call;
    for (let attempt = 1;; attempt++) {
      try {
        return await this.#ask(request, session, carrier, signal);
      } catch (error) {
        // A guessed carrier that got its own answer first took the question with it (a 2026-07-28
        // client's question ends with its call): it goes with a call still waiting instead, of the same session.
        const ended = guessed && carrier && !carrier.abandoned.aborted && !signal.aborted && !this.#calls.inFlight().includes(carrier);
        const next = ended && attempt < MAX_CARRIERS ? guessedOwner(this.#calls, (other) => this.#sessionOf(other) === session) : undefined;
        if (!next) throw asRelayedError(error);
        carrier = next;
      }
    }
  }

  /**
   * The session a question goes to: its call's. A question of no call goes to the one session
   * using the server, and one that only a guess places goes nowhere while calls of two sessions
   * are in flight: a guess would put one person's question in front of another.
   */
  #sessionAsked(call: CallInFlight | undefined, guessed: boolean): Upstream {
    const sessions = this.#upstream.sessions?.() ?? [this.#upstream];
    if (call && guessed) {
      const calling = new Set(this.#calls.inFlight().map((other) => this.#sessionOf(other)));
      if (calling.size > 1) {
        throw errorWithCode(
          ErrorCode.InvalidRequest,
          `The server is shared by ${sessions.length} sessions with calls in flight, and nothing says which call asked: ` +
            `the question goes to none of them`,
        );
      }
    }
    if (call) return this.#sessionOf(call);
    if (sessions.length <= 1) return sessions[0] ?? this.#upstream;
    throw errorWithCode(
      ErrorCode.InvalidRequest,
      `The server is shared by ${sessions.length} sessions and the question belongs to no call of one of them`,
    );
  }

  #sessionOf(call: CallInFlight): Upstream {
    return call.upstream ?? this.#upstream;
  }

  async #ask(
    request: { method: string; params?: Record<string, unknown> },
    session: Upstream,
    call: CallInFlight | undefined,
    signal: AbortSignal,
  ) {
    const release = call?.hold();
    // Counted until answered: the next question goes to a call that carries none, where that is a choice.
    if (call) call.questions++;
    try {
      return await session.request(request.method, request.params, {
        signal: call ? AbortSignal.any([signal, call.abandoned]) : signal,
        relatedRequestId: call?.relatedRequestId,
        timeout: this.#target.requestTimeoutMs,
        from: `${this.#target.toolbox}/${this.#target.server}`,
      });
    } finally {
      if (call) call.questions--;
      release?.();
    }
  }

  /** During a call, to that call's session; outside one, to every session using the server (each at its own level). */
  async #notify(notification: { method: string; params?: Record<string, unknown> }): Promise<void> {
    const call = notificationOwner({ meta: notification.params?._meta }, this.#calls);
    try {
      const session = call ? this.#sessionOf(call) : this.#upstream;
      await session.notify(notification.method, notification.params, call?.relatedRequestId);
    } catch (error) {
      this.#log(`passing on ${notification.method} failed: ${messageOf(error)}`);
    }
  }
}

/** The client's error as the server would get it directly (see passedOn); anything else as it is. */
function asRelayedError(error: unknown): unknown {
  return error instanceof McpError ? passedOn(error) : error;
}
