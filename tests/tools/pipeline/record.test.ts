/** The record step alone: one audit line per call, its outcome from the note, the cancellation or the result. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_SETTINGS, validateConfig, type WorkbenchConfig } from "../../../src/config/index.ts";
import { AuditLog, type AuditEntry } from "../../../src/trust/audit-log.ts";
import { recordCall } from "../../../src/tools/pipeline/record.ts";
import { Failure, Success } from "../../../src/tools/pipeline/values.ts";

const config = validateConfig({ toolboxes: { dev: { mcpServers: { s: { command: "x", env: { TOKEN: "s3cret-value-123" } } } } } });
const id = { toolbox: "dev", server: "s", name: "echo" };

async function lines(withArguments: boolean, write: (log: AuditLog) => void): Promise<AuditEntry[]> {
  const written: string[] = [];
  const log = new AuditLog("/audit.jsonl", withArguments, { append: async (_, text) => void written.push(text), warn: () => {} });
  write(log);
  await log.flushed();
  return written.join("").trim().split("\n").map((line) => JSON.parse(line));
}

test("record: the outcome comes from the note, then the cancellation, then the result; session and client are named", async () => {
  const live = new AbortController().signal;
  const ctx = { config, signal: live, sessionId: "s-1", clientName: "alice" };
  const base = { id, args: {}, ctx, started: Date.UTC(2026, 0, 1), durationMs: 1.26 };
  const ok = Success({ content: [{ type: "text" as const, text: "hi" }] });
  const entries = await lines(false, (log) => {
    recordCall(log, { ...base, note: {}, result: ok });
    recordCall(log, { ...base, note: { outcome: "declined" }, result: Failure("no") });
    recordCall(log, { ...base, note: { outcome: "withheld" }, result: Failure("held") });
    recordCall(log, { ...base, note: {}, result: Failure("gone") });
    recordCall(log, { ...base, note: {}, result: Success({ content: [], isError: true }) });
    recordCall(log, { ...base, ctx: { ...ctx, signal: AbortSignal.abort() }, note: {}, result: Failure("cancelled") });
  });
  assert.deepEqual(entries.map((entry) => entry.outcome), ["ok", "declined", "withheld", "failed", "tool error", "cancelled"]);
  assert.deepEqual(entries[0], {
    time: "2026-01-01T00:00:00.000Z", session: "s-1", client: "alice", toolbox: "dev", server: "s", tool: "echo",
    outcome: "ok", durationMs: 1.3, resultBytes: 41,
  });
});

test("record: arguments only when the log asks for them, with the server's secrets masked", async () => {
  const ctx = { config, signal: new AbortController().signal };
  const call = { id, args: { text: "key s3cret-value-123" }, ctx, note: {}, result: Failure("x"), started: 0, durationMs: 0 };
  const [without] = await lines(false, (log) => recordCall(log, call));
  assert.equal(without.arguments, undefined);
  const [shown] = await lines(true, (log) => recordCall(log, call));
  assert.doesNotMatch(JSON.stringify(shown.arguments), /s3cret-value-123/);
  assert.match(JSON.stringify(shown.arguments), /key /);
});

const OWN = "own-secret-0123456789";
const OTHER_ENV = "other-env-secret-abcdef";
const OTHER_HEADER = "other-header-token-xyz";
const SERVE_TOKEN = "bob-serve-token-9876543210";

test("call record: another server's secrets and the serve tokens are masked in the arguments, not only the called server's", async () => {
  const stdio = (env: Record<string, string>) => ({ ...DEFAULT_SETTINGS, command: "x", args: [], env, transport: "stdio" as const });
  const remote = { ...DEFAULT_SETTINGS, url: "https://h.test/mcp", headers: { Authorization: `Bearer ${OTHER_HEADER}` }, transport: "http" as const };
  const twoServers = {
    toolboxes: {
      a: { description: "a", mcpServers: { called: stdio({ KEY: OWN }) } },
      b: { description: "b", mcpServers: { other: stdio({ KEY: OTHER_ENV }), remote } },
    },
    serve: { clients: { bob: { token: SERVE_TOKEN, toolboxes: "*" } }, allowedOrigins: [], sessionIdleMinutes: 60 },
  } as unknown as WorkbenchConfig;
  const config = twoServers;
  let written = "";
  const log = new AuditLog("/log", true, { append: async (_, text) => void (written += text), warn: () => {} });
  const args = { note: `${OWN} ${OTHER_ENV} ${OTHER_HEADER} ${SERVE_TOKEN}` };
  const ctx = { config, signal: new AbortController().signal };
  const result = { ok: true as const, value: { content: [] } };
  recordCall(log, { id: { toolbox: "a", server: "called", name: "echo" }, args, ctx, note: {}, result, started: 0, durationMs: 1 });
  await log.flushed();
  assert.deepEqual(JSON.parse(written).arguments, { note: "*** *** *** ***" });
});
