/** The record step alone: one audit line per call, its outcome from the note, the cancellation or the result. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_SETTINGS, validateConfig, type WorkbenchConfig } from "../../../src/config/index.ts";
import { AuditLog, type AuditEntry } from "../../../src/trust/audit-log.ts";
import { recordCall } from "../../../src/tools/pipeline/record.ts";
import { type CallNote, Failure, Success, type ToolId } from "../../../src/tools/pipeline/values.ts";
import { record } from "../../../src/tools/pipeline/record.ts";
import { resolvedCall, stubNext } from "../../helpers/calls.ts";

const offer = { find: () => Promise.reject(new Error("No offer here")) };
const plainCall = (id: ToolId, config: WorkbenchConfig) => ({ id, session: { config, offer }, request: { signal: new AbortController().signal }, note: {} });

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
  const session = { config, offer, sessionId: "s-1", clientName: "alice" };
  const request = { signal: new AbortController().signal };
  const base = { args: {}, started: Date.UTC(2026, 0, 1), durationMs: 1.26 };
  const callOf = (note: CallNote, signal = request.signal) => ({ id, session, request: { signal }, note });
  const ok = Success({ content: [{ type: "text" as const, text: "hi" }] });
  const entries = await lines(false, (log) => {
    recordCall(log, { ...base, call: callOf({}), result: ok });
    recordCall(log, { ...base, call: callOf({ outcome: "declined" }), result: Failure("no") });
    recordCall(log, { ...base, call: callOf({ outcome: "withheld" }), result: Failure("held") });
    recordCall(log, { ...base, call: callOf({}), result: Failure("gone") });
    recordCall(log, { ...base, call: callOf({}), result: Success({ content: [], isError: true }) });
    recordCall(log, { ...base, call: callOf({}, AbortSignal.abort()), result: Failure("cancelled") });
  });
  assert.deepEqual(entries.map((entry) => entry.outcome), ["ok", "declined", "withheld", "failed", "tool error", "cancelled"]);
  assert.deepEqual(entries[0], {
    time: "2026-01-01T00:00:00.000Z", session: "s-1", client: "alice", toolbox: "dev", server: "s", tool: "echo",
    outcome: "ok", durationMs: 1.3, resultBytes: 41,
  });
});

test("record: arguments only when the log asks for them, with the server's secrets masked", async () => {
  const finished = { call: plainCall(id, config), args: { text: "key s3cret-value-123" }, result: Failure("x"), started: 0, durationMs: 0 };
  const [without] = await lines(false, (log) => recordCall(log, finished));
  assert.equal(without.arguments, undefined);
  const [shown] = await lines(true, (log) => recordCall(log, finished));
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
  const result = { ok: true as const, value: { content: [] } };
  recordCall(log, { call: plainCall({ toolbox: "a", server: "called", name: "echo" }, config), args, result, started: 0, durationMs: 1 });
  await log.flushed();
  assert.deepEqual(JSON.parse(written).arguments, { note: "*** *** *** ***" });
});

test("record: the step records the outcome of what comes after it, with the arguments the caller gave", async () => {
  const written: string[] = [];
  const audit = new AuditLog("/audit.jsonl", true, { append: async (_, text) => void written.push(text), warn: () => {} });
  const call = resolvedCall({ session: { audit, sessionId: "s-9" }, args: { text: "hi" } });
  const { next, got } = stubNext();
  const result = await record((passed) => {
    passed.note.outcome = "declined";
    passed.args = { text: "a copy shown" };
    return next(passed);
  })(call);
  assert.equal(result.ok, true);
  assert.equal(got.length, 1);
  await audit.flushed();
  const [entry] = written.join("").trim().split("\n").map((line) => JSON.parse(line));
  assert.equal(entry.outcome, "declined");
  assert.equal(entry.session, "s-9");
  assert.deepEqual(entry.arguments, { text: "hi" });
});
