/** What a StreamTransport is told: limits, what it answers, and the flow it holds and waits on. */
import type { FlowGate } from "./flow-gate.ts";
import type { ByteRoom } from "./byte-room.ts";

export interface StreamTransportOptions {
  /** Largest message accepted, in bytes (default 64 MiB). */
  maxMessageBytes?: number;
  /**
   * After the peer ends its stream, how long to keep answering the requests it already sent
   * before closing (default 0: close at once). A client that writes requests and then closes
   * its end, as a shell pipe does, still gets its answers.
   */
  drainMs?: number;
  /**
   * Whether an ignored line is quoted in the error (default true). A server's stray output is
   * worth seeing; a client's line may hold a tool's arguments, secrets included: our stdin says
   * only how long it was.
   */
  quoteIgnoredLines?: boolean;
  /**
   * Answer what JSON-RPC says to answer (a parse error, an invalid request, a request whose id is
   * already in flight) and drop responses to requests we never sent: for the side where we serve
   * a client. A server's stray output is only logged, never answered: it might answer back.
   */
  answerInvalid?: boolean;
  /**
   * While more than `highWaterMark` bytes wait to be written to the peer, or a sender waits for its
   * turn (whenRoom), hold `gate` if given, until they are down to half of it and no one waits. A
   * ByteRoom given here is that bound, made by whoever shares it (a server's link, byte-room.ts).
   */
  backlog?: ByteRoom | { gate?: FlowGate; highWaterMark: number };
  /**
   * Stop reading the peer while this many of its requests are in flight (read and not yet
   * answered, or answered and not yet written), until they are down to half of it: a peer that
   * writes requests without reading the answers then waits in its pipe, not in our memory. Each
   * request of ours the peer has still to answer raises the bound by one (with answerInvalid).
   */
  maxRequestsInFlight?: number;
  /** Reading from the peer waits while this gate (or any of these gates) is held. */
  readGate?: FlowGate | readonly FlowGate[];
  /**
   * After close, keep reading what the peer writes, and discard it, until the stream ends or
   * stopDraining(): a child still finishing its work would fail its last writes (EPIPE) if its
   * stdout were closed under it.
   */
  drainAfterClose?: boolean;
}
