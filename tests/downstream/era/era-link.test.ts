/** The probe at initialize, against a scripted link: which era, what is remembered, what falls back. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JSONRPCMessage, Transport } from "../../../src/protocol/sdk.ts";
import type { ServerConfig } from "../../../src/config/index.ts";
import type { ServerLink } from "../../../src/downstream/links/link.ts";
import { EraLink, type EraMemory } from "../../../src/downstream/era/era-link.ts";
import type { Era } from "../../../src/protocol/wire.ts";
import { PROBE_MS } from "../../../src/downstream/era/probe.ts";

type Message = Record<string, any>;

const INITIALIZE = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } } };
const DISCOVERED = { supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, _meta: { "io.modelcontextprotocol/serverInfo": { name: "m", version: "1" } } };

/** A link whose server is this test: `reply` answers each message sent, or leaves it unanswered. */
class ScriptedLink implements ServerLink {
  readonly sent: Message[] = [];
  claim?: (message: JSONRPCMessage) => boolean;
  onLost?: (reason: string) => void;
  ended?: string;
  /** What the child wrote on stderr before it ended. */
  stderr = "";
  reply: (message: Message) => Message | "exit" | undefined = () => undefined;
  readonly transport: Transport = {
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    send: (message) => {
      this.sent.push(message);
      const answer = this.reply(message);
      if (answer === "exit") {
        this.ended = "server exited with code 1";
        this.onLost?.(this.ended);
      } else if (answer) queueMicrotask(() => this.fromServer({ jsonrpc: "2.0", id: (message as Message).id, ...answer }));
      return Promise.resolve();
    },
  };
  fromServer(message: Message): void {
    if (!this.claim?.(message as JSONRPCMessage)) this.transport.onmessage?.(message as JSONRPCMessage);
  }
  endedWithin = () => Promise.resolve(this.ended);
  saidAnything = () => Promise.resolve(this.stderr !== "");
  close = () => Promise.resolve();
  redact = (text: string) => text;
}

function memory(initial?: Era) {
  const eras: Era[] = initial ? [initial] : [];
  const store: EraMemory = { eraOf: () => Promise.resolve(eras.at(-1)), rememberEra: (_, era) => void eras.push(era) };
  return { store, eras };
}

const CONFIG = { connectTimeoutMs: 200 } as ServerConfig;

/** Sends the Client's initialize through `link` and gives what came back to the Client. */
async function initialize(link: EraLink): Promise<Message> {
  const answered = new Promise<Message>((resolve) => (link.transport.onmessage = (message) => resolve(message)));
  await link.transport.send(INITIALIZE as JSONRPCMessage);
  return await answered;
}

test("a server that does not answer server/discover in time is initialized on the same link, and not remembered (a slow start proves nothing)", async () => {
  const inner = new ScriptedLink();
  inner.reply = (message) => message.method === "initialize" ? { result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "old", version: "1" } } } : undefined;
  const { store, eras } = memory();
  const link = new EraLink(inner, CONFIG, store);
  const started = performance.now();
  const answer = await initialize(link);
  // Half the connect timeout (100 ms), at most PROBE_MS: the probe neither gives up early nor waits PROBE_MS.
  const waited = performance.now() - started;
  assert.ok(waited >= 95, `waited for the probe: ${waited} ms`);
  assert.ok(waited < PROBE_MS * 0.75, `waited ${waited} ms, not the 100 ms a 200 ms connect timeout allows`);
  assert.equal(answer.result.serverInfo.name, "old");
  assert.deepEqual(inner.sent.map((message) => message.method), ["server/discover", "initialize"]);
  assert.deepEqual(eras, []);
  assert.equal(link.era, "2025-11-25");
});

test("a 2026-only server too slow for the probe refuses initialize with -32022, and is probed again at once", async () => {
  const inner = new ScriptedLink();
  let probes = 0;
  inner.reply = (message) => {
    if (message.method === "server/discover") return ++probes === 1 ? undefined : { result: DISCOVERED };
    if (message.method === "initialize") {
      return { error: { code: -32022, message: "Unsupported protocol version: 2025-11-25", data: { supported: ["2026-07-28"], requested: "2025-11-25" } } };
    }
    return undefined;
  };
  const { store, eras } = memory();
  const link = new EraLink(inner, CONFIG, store);
  const answer = await initialize(link);
  assert.equal(answer.result?.serverInfo?.name, "m", JSON.stringify(answer));
  assert.deepEqual(inner.sent.map((message) => message.method), ["server/discover", "initialize", "server/discover"]);
  assert.deepEqual(eras, ["2026-07-28"]);
  assert.equal(link.era, "2026-07-28");
});

test("a server remembered as 2025-11-25 is not probed", async () => {
  const inner = new ScriptedLink();
  inner.reply = (message) => message.method === "initialize" ? { result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "old", version: "1" } } } : undefined;
  const link = new EraLink(inner, CONFIG, memory("2025-11-25").store);
  await initialize(link);
  assert.deepEqual(inner.sent.map((message) => message.method), ["initialize"]);
});

test("a server remembered as 2026-07-28 that now answers -32601 falls back to initialize, and is remembered so", async () => {
  const inner = new ScriptedLink();
  inner.reply = (message) =>
    message.method === "server/discover"
      ? { error: { code: -32601, message: "Method not found" } }
      : { result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "old", version: "1" } } };
  const { store, eras } = memory("2026-07-28");
  const link = new EraLink(inner, CONFIG, store);
  assert.equal((await initialize(link)).result.serverInfo.name, "old");
  assert.deepEqual(eras, ["2026-07-28", "2025-11-25"]);
});

test("a server that exits in silence at the probe is marked for a start without it (the probe proved nothing)", async () => {
  const inner = new ScriptedLink();
  inner.reply = (message) => message.method === "server/discover" ? "exit" : undefined;
  const { store, eras } = memory();
  const link = new EraLink(inner, CONFIG, store);
  await assert.rejects(link.transport.send(INITIALIZE as JSONRPCMessage), /server left while asked for 2026-07-28/);
  assert.equal(link.exitedDuringProbe, true);
  assert.deepEqual(eras, ["2025-11-25"]);
});

test("a server that says why on stderr and exits at the probe failed to start: it is not started again, but not probed next time", async () => {
  const inner = new ScriptedLink();
  inner.stderr = "Error: Cannot find module '/srv/server.js'";
  inner.reply = (message) => message.method === "server/discover" ? "exit" : undefined;
  const { store, eras } = memory();
  const link = new EraLink(inner, CONFIG, store);
  await assert.rejects(link.transport.send(INITIALIZE as JSONRPCMessage), /server left while asked for 2026-07-28/);
  assert.equal(link.exitedDuringProbe, false);
  assert.deepEqual(eras, ["2025-11-25"]);
});

test("a server remembered as 2025-11-25 that now refuses it (-32022) is probed and spoken to in 2026-07-28", async () => {
  const inner = new ScriptedLink();
  inner.reply = (message) =>
    message.method === "server/discover"
      ? { result: DISCOVERED }
      : { error: { code: -32022, message: "Unsupported protocol version: 2025-11-25", data: { supported: ["2026-07-28"] } } };
  const { store, eras } = memory("2025-11-25");
  const link = new EraLink(inner, CONFIG, store);
  const answer = await initialize(link);
  assert.equal(answer.result.serverInfo.name, "m");
  assert.deepEqual(inner.sent.map((message) => message.method), ["initialize", "server/discover"]);
  assert.deepEqual(eras, ["2025-11-25", "2026-07-28"]);
  assert.equal(link.era, "2026-07-28");
});
