/**
 * One HTTP request's answer, sent whichever way Streamable HTTP lets the server choose (issue 42):
 * as plain JSON when nothing has to go before it, which is most calls (one whole Response: no
 * stream, no timer of its own); as an event stream once something must go first (progress, a log
 * message of the call, a question of the server's) or once the answer is slow in coming. A slow
 * answer gets its stream within UPGRADE_MS to 2 × UPGRADE_MS: the client sees the response's
 * headers, and the stream's heartbeats then notice a client that left, as a stream begun at once
 * would. One ticker for every reply waiting, running only while some wait, takes them there.
 */
import { wholeJson } from "./replies.ts";

/** A reply with no answer after one to two of these goes on as an event stream. */
export const UPGRADE_MS = 500;

export interface ReplyOptions {
  /** Headers of the response, JSON or stream alike (the Content-Type aside). */
  headers: Record<string, string>;
  /** Headers only an event stream gets (Cache-Control and the like). */
  streamHeaders: Record<string, string>;
  /** How often a stream with nothing to send writes `heartbeat` (0: never). */
  heartbeatMs: number;
  heartbeat: string;
  /** The client closed the stream before the answer. */
  cancel?: () => void;
}

const encoder = new TextEncoder();
/** Replies with no answer and no stream yet, and whether the ticker has seen each once. */
const waiting = new Map<PendingReply, boolean>();
let ticker: ReturnType<typeof setInterval> | undefined;

function tick(): void {
  for (const [reply, seen] of waiting) {
    if (seen) reply.stream();
    else waiting.set(reply, true);
  }
  if (waiting.size === 0) (clearInterval(ticker), ticker = undefined);
}

export class PendingReply {
  readonly response: Promise<Response>;
  readonly #options: ReplyOptions;
  #resolve!: (response: Response) => void;
  #controller?: ReadableStreamDefaultController<Uint8Array>;
  #heartbeat?: ReturnType<typeof setInterval>;
  #done = false;

  constructor(options: ReplyOptions) {
    this.#options = options;
    this.response = new Promise((resolve) => this.#resolve = resolve);
    waiting.set(this, false);
    ticker ??= setInterval(tick, UPGRADE_MS);
  }

  /** Something for the client before the answer: the reply becomes an event stream if it was not one. */
  event(message: unknown): void {
    if (this.#done) return;
    this.stream();
    this.#write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  /** The answer: the whole response if nothing went before it, else the stream's last event. */
  finish(message: unknown): void {
    if (this.#done) return;
    this.#done = true;
    waiting.delete(this);
    if (!this.#controller) return this.#resolve(wholeJson(JSON.stringify(message), 200, this.#options.headers));
    clearInterval(this.#heartbeat);
    this.#write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    try {
      this.#controller.close();
    } catch {
      // Closed already: the client is gone.
    }
  }

  /**
   * Ends with no answer (the client cancelled the request, and a cancelled request is not
   * answered): a stream begun is closed, else the response is an event stream with nothing in it.
   * Either way the HTTP request ends, and with it what it holds (a request in flight, the session in use).
   */
  end(): void {
    if (this.#done) return;
    this.stream();
    this.#done = true;
    clearInterval(this.#heartbeat);
    try {
      this.#controller?.close();
    } catch {
      // Closed already: the client is gone.
    }
  }

  /** Goes on as an event stream now (a no-op once it is one, or once answered). */
  stream(): void {
    if (this.#controller || this.#done) return;
    waiting.delete(this);
    const { headers, streamHeaders, heartbeatMs, heartbeat } = this.#options;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        clearInterval(this.#heartbeat);
        if (this.#done) return;
        this.#done = true;
        this.#options.cancel?.();
      },
    });
    if (heartbeatMs > 0) this.#heartbeat = setInterval(() => this.#write(heartbeat), heartbeatMs);
    this.#resolve(new Response(body, { headers: { ...headers, ...streamHeaders, "Content-Type": "text/event-stream" } }));
  }

  #write(chunk: string): void {
    try {
      this.#controller!.enqueue(encoder.encode(chunk));
    } catch {
      // The client is gone.
    }
  }
}
