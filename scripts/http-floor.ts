/**
 * Issue 42's floor for serving over HTTP: what the runtime alone costs to take a JSON-RPC echo in
 * and pass it to the same fixture server through a pipe, with no checks at all. It runs like the
 * workbench for `scripts/compare-builds.ts http` (give its path as an EXE): `bun
 * scripts/http-floor.ts --config X` over stdio (newline-delimited JSON-RPC), or with `serve --http
 * 127.0.0.1:0` a bare `Bun.serve` that answers each POST with plain JSON. It answers `initialize`
 * itself (a session id that is never checked), takes any `tools/call` but `use_tool` as an
 * `open_toolbox`, and passes `use_tool`'s inner call to the fixture `s1` as `tools/call`. No body
 * bounds, no origin or token check, no session table: not something to serve with.
 */
import { spawn } from "node:child_process";
import process from "node:process";
import { fixtureCommand } from "./bench/targets.ts";

type Message = { jsonrpc: "2.0"; id?: string | number; method?: string; params?: Record<string, unknown>; result?: unknown };
interface BunServe {
  serve(options: { hostname: string; port: number; fetch(request: Request): Response | Promise<Response> }): { port: number };
}

const fixture = fixtureCommand("s1");
const child = spawn(fixture.command, fixture.args, { env: { ...process.env, ...fixture.env }, stdio: ["pipe", "pipe", "inherit"] });
const pending = new Map<number, (message: Message) => void>();
let lastId = 0;
lines(child.stdout!, (line) => {
  const message = JSON.parse(line) as Message;
  if (typeof message.id === "number") pending.get(message.id)?.(message), pending.delete(message.id);
});

function toFixture(method: string, params: unknown): Promise<Message> {
  const id = ++lastId;
  child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  return new Promise((resolve) => pending.set(id, resolve));
}

/** The answer to one request (undefined for a notification). */
async function answer(message: Message): Promise<Message | undefined> {
  if (message.id === undefined) return undefined;
  const reply = (result: unknown): Message => ({ jsonrpc: "2.0", id: message.id, result });
  if (message.method === "initialize") {
    const version = (message.params as { protocolVersion: string }).protocolVersion;
    return reply({ protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: "http-floor", version: "0" } });
  }
  const params = message.params as { name?: string; arguments?: { tool?: { name: string }; arguments?: unknown } } | undefined;
  if (message.method !== "tools/call") return reply({});
  if (params?.name !== "use_tool") return reply({ content: [{ type: "text", text: "opened" }] });
  const inner = await toFixture("tools/call", { name: params.arguments!.tool!.name, arguments: params.arguments!.arguments });
  return reply(inner.result);
}

await toFixture("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "http-floor", version: "0" } });
child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);

const at = process.argv.indexOf("--http");
if (at < 0) {
  lines(process.stdin, (line) => {
    void answer(JSON.parse(line)).then((reply) => reply && process.stdout.write(`${JSON.stringify(reply)}\n`));
  });
  process.stdin.on("end", () => (child.kill(), process.exit(0)));
} else {
  const [hostname, port] = process.argv[at + 1].split(":");
  const bun = (globalThis as unknown as { Bun: BunServe }).Bun;
  const server = bun.serve({
    hostname,
    port: Number(port),
    async fetch(request) {
      if (request.method !== "POST") return new Response(null, { status: request.method === "DELETE" ? 200 : 405 });
      const reply = await answer(await request.json());
      if (!reply) return new Response(null, { status: 202 });
      return Response.json(reply, { headers: { "mcp-session-id": "floor" } });
    },
  });
  process.stderr.write(`http-floor: serving at http://${hostname}:${server.port}/mcp\n`);
  process.on("SIGTERM", () => (child.kill(), process.exit(0)));
}

/** Calls `each` with every line of a byte stream. */
function lines(stream: NodeJS.ReadableStream, each: (line: string) => void): void {
  let buffered = "";
  stream.setEncoding("utf8");
  stream.on("data", (text: string) => {
    buffered += text;
    let end: number;
    while ((end = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (line.trim()) each(line);
    }
  });
}
