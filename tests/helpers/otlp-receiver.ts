/**
 * A small OTLP/HTTP receiver for tests: node:http on 127.0.0.1, a free port, `/v1/traces` and
 * `/v1/metrics` in protobuf or JSON, each request decoded (otlp-decode.ts) and kept. It can answer
 * an error, answer late, or hold every request until released: a collector that is down or slow.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeMetricsProto, decodeTracesProto, type ReceivedHistogram, type ReceivedSpan } from "./otlp-decode.ts";
import { decodeMetricsJson, decodeTracesJson } from "./otlp-decode-json.ts";

export interface ReceivedRequest {
  path: string;
  contentType: string;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
}

export interface OtlpReceiver {
  /** http://127.0.0.1:<port> (the base: OTEL_EXPORTER_OTLP_ENDPOINT) */
  url: string;
  requests: ReceivedRequest[];
  spans: ReceivedSpan[];
  histograms: ReceivedHistogram[];
  /** What went wrong decoding (a test asserts it empty). */
  problems: string[];
  /** Answer every request with this status (200 by default). */
  status: number;
  /** Hold every request unanswered until `release()` (a collector that hangs). */
  hold: boolean;
  release(): void;
  /** Resolves once `test` holds, polling every 10 ms; rejects after `timeoutMs`. */
  waitFor(test: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const held: (() => void)[] = [];
  const sockets = new Set<import("node:net").Socket>();
  const receiver = {
    requests: [] as ReceivedRequest[],
    spans: [] as ReceivedSpan[],
    histograms: [] as ReceivedHistogram[],
    problems: [] as string[],
    status: 200,
    hold: false,
  };
  const server = createServer((request, response) => {
    void take(request).then((body) => {
      record(receiver, request, body);
      const answer = () => reply(response, receiver.status, request.headers["content-type"] ?? "");
      if (receiver.hold) held.push(answer);
      else answer();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    release: () => held.splice(0).forEach((answer) => answer()),
    waitFor: (test: () => boolean, timeoutMs = 10_000) => waitFor(test, timeoutMs),
    close: async () => {
      held.splice(0).forEach((answer) => answer());
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

async function take(request: IncomingMessage): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of request) chunks.push(chunk as Uint8Array);
  const body = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) body.set(chunk, (at += chunk.length) - chunk.length);
  return body;
}

function record(receiver: Pick<OtlpReceiver, "requests" | "spans" | "histograms" | "problems">, request: IncomingMessage, body: Uint8Array) {
  const path = request.url ?? "";
  const contentType = request.headers["content-type"] ?? "";
  receiver.requests.push({ path, contentType, headers: request.headers, bytes: body.length });
  try {
    const json = contentType === "application/json";
    if (!json && contentType !== "application/x-protobuf") throw new Error(`Content-Type '${contentType}'`);
    const text = () => new TextDecoder().decode(body);
    if (path === "/v1/traces") receiver.spans.push(...(json ? decodeTracesJson(text()) : decodeTracesProto(body)));
    else if (path === "/v1/metrics") receiver.histograms.push(...(json ? decodeMetricsJson(text()) : decodeMetricsProto(body)));
    else throw new Error(`Path '${path}'`);
  } catch (error) {
    receiver.problems.push(`${path}: ${error instanceof Error ? error.message : error}`);
  }
}

function reply(response: ServerResponse, status: number, contentType: string): void {
  if (response.destroyed) return;
  response.writeHead(status, { "content-type": contentType || "application/x-protobuf" });
  // An empty ExportTraceServiceResponse is zero bytes in protobuf, `{}` in JSON.
  response.end(contentType === "application/json" ? "{}" : "");
}

async function waitFor(test: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`Not received within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
