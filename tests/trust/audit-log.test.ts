/** The audit log's writer (src/trust/audit-log.ts), its masking and its measure of results, with a sink in memory. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { type AuditEntry, auditLine, AuditLog, boundedArguments, CUT_MARKER, MAX_ARGUMENT_CHARS, MAX_NAME_CHARS, openAuditLog } from "../../src/trust/audit-log.ts";
import { resultFacts } from "../../src/trust/result-facts.ts";
import { utf8Bytes } from "../../src/transport/utf8.ts";
import { looksSecret, serverRedactor, shownValue } from "../../src/trust/shown-arguments.ts";
import { lazyJsonObject } from "../../src/transport/raw-json.ts";
import { DEFAULT_SETTINGS } from "../../src/config/index.ts";

const entry = (tool: string): AuditEntry => ({
  time: new Date(0).toISOString(),
  toolbox: "t",
  server: "s",
  tool,
  outcome: "ok",
  durationMs: 1,
  resultBytes: 2,
});

test("audit log: lines in the order recorded, whole, those recorded during a write go in the next one", async () => {
  const writes: string[] = [];
  let release!: () => void;
  const log = new AuditLog("/log", false, {
    append: async (_, text) => {
      writes.push(text);
      if (writes.length === 1) await new Promise<void>((resolve) => (release = resolve));
    },
    warn: () => assert.fail("no warning"),
  });
  log.record(entry("a"));
  for (const tool of ["b", "c", "d"]) log.record(entry(tool));
  await new Promise((resolve) => setTimeout(resolve, 10));
  release();
  await log.flushed();
  assert.equal(writes.length, 2, "one append under way, the rest together");
  const tools = writes.join("").trim().split("\n").map((line) => JSON.parse(line).tool);
  assert.deepEqual(tools, ["a", "b", "c", "d"]);
});

test("audit log: a failing write is said once, never thrown, and later lines are tried again", async () => {
  const warnings: string[] = [];
  let failing = true;
  const written: string[] = [];
  const log = new AuditLog("/nowhere/log", false, {
    append: (_, text) => failing ? Promise.reject(new Error("ENOENT: no such file or directory")) : Promise.resolve(void written.push(text)),
    warn: (text) => warnings.push(text),
  });
  for (let i = 0; i < 5; i++) {
    log.record(entry(`x${i}`));
    await log.flushed();
  }
  assert.deepEqual(warnings, ["Cannot write audit log '/nowhere/log': ENOENT: no such file or directory (tool calls go on unrecorded; this is said once)"]);
  failing = false;
  log.record(entry("y"));
  await log.flushed();
  assert.equal(JSON.parse(written[0]).tool, "y");
  assert.equal(openAuditLog({}, { append: async () => {}, warn: () => {} }), undefined);
  assert.equal(openAuditLog({ auditLog: "/x", auditArguments: true }, { append: async () => {}, warn: () => {} })?.withArguments, true);
});

test("audit log: lines waiting on a write that never ends are bounded, and the drop is said once", async () => {
  const warnings: string[] = [];
  let writes = 0;
  const log = new AuditLog("/hung", false, { append: () => (writes++, new Promise(() => {})), warn: (text) => warnings.push(text) });
  for (let i = 0; i < 100_010; i++) log.record(entry(`x${i}`));
  assert.equal(writes, 1);
  assert.deepEqual(warnings, ["Audit log '/hung' is not being written: over 100000 lines wait, later ones are dropped (this is said once)"]);
});

test("audit log: arguments masked by key and by the server's configured secrets", () => {
  for (const key of ["password", "api_key", "apiKey", "GITHUB_TOKEN", "client_secret", "Authorization", "privateKey", "pwd"]) assert.ok(looksSecret(key), key);
  for (const key of ["path", "name", "query", "passenger", "author"]) assert.ok(!looksSecret(key), key);
  const stdio = { ...DEFAULT_SETTINGS, command: "x", args: [], env: { API_KEY: "0123456789abcdef", MODE: "info" }, transport: "stdio" as const };
  const redactor = serverRedactor(stdio);
  const shown = shownValue({ q: "key 0123456789abcdef", mode: "info", token: 42, nested: [{ secret: "s" }], empty: { password: "" } }, { redact: (t) => redactor.redact(t) });
  assert.deepEqual(shown, { q: "key ***", mode: "info", token: "***", nested: [{ secret: "***" }], empty: { password: "" } });
  const remote = { ...DEFAULT_SETTINGS, url: "https://h.test/mcp?key=qwertyuiop", headers: { Authorization: "Bearer tok-abcdefgh" }, transport: "http" as const };
  assert.equal(serverRedactor(remote).redact("tok-abcdefgh and qwertyuiop"), "*** and ***");
});

test("audit log: a result's size in UTF-8 bytes and its isError, read from a raw result without parsing it", () => {
  for (const text of ["", "abc", "é", "€", "😀", "a😀é€"]) assert.equal(utf8Bytes(text), new TextEncoder().encode(text).length, text);
  const result = { content: [{ type: "text", text: "héllo" }], isError: true };
  assert.deepEqual(resultFacts(result), { bytes: new TextEncoder().encode(JSON.stringify(result)).length, isError: true });
  const bytes = new TextEncoder().encode('{"content":[{"type":"text","text":"say \\"isError\\":true"}]}');
  const raw = lazyJsonObject([bytes.subarray(0, 20), bytes.subarray(20)]);
  assert.deepEqual(resultFacts(raw), { bytes: bytes.length, isError: false }, "the word inside a string is no member");
  const failed = new TextEncoder().encode('{"content":[],"isError": true}');
  assert.deepEqual(resultFacts(lazyJsonObject([failed])), { bytes: failed.length, isError: true });
});

/** Where Python's str.splitlines() breaks a line. */
const SPLITLINES = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

test("audit log: no character any line reader splits on breaks a line; the values read back the same", async () => {
  const odd = "a\u2028b\u2029c\u0085d\ve\ff\x1cg\x1dh\x1ei\nj\rk";
  let written = "";
  const log = new AuditLog("/log", true, { append: async (_, text) => void (written += text), warn: () => {} });
  log.record({ ...entry(odd), arguments: { [odd]: odd } });
  log.record(entry("next"));
  await log.flushed();
  const lines = written.split(SPLITLINES);
  assert.equal(lines.length, 3, JSON.stringify(written));
  assert.equal(lines[2], "");
  assert.deepEqual(JSON.parse(lines[0]).arguments, { [odd]: odd });
  assert.equal(JSON.parse(lines[0]).tool, odd);
});

test("audit log: long arguments are cut to 4096 characters of JSON with a marker; short ones stay as they are", () => {
  assert.deepEqual(boundedArguments({ path: "/tmp" }), { path: "/tmp" });
  const cut = boundedArguments({ text: "x".repeat(1_000_000) });
  assert.equal(typeof cut, "string");
  assert.equal(cut, `{"text":"${"x".repeat(MAX_ARGUMENT_CHARS - 9)}${CUT_MARKER}`);
});

test("audit log: toolbox, server, tool and client names are cut past 256 characters, never in a surrogate pair, the keys in their order", () => {
  const long = "n".repeat(5_000_000);
  const line = auditLine({ ...entry(long), toolbox: long, server: long, client: long, session: "s1" });
  assert.ok(line.length < 2_000, `${line.length} characters`);
  const read = JSON.parse(line);
  for (const key of ["toolbox", "server", "tool", "client"]) assert.equal(read[key], `${"n".repeat(MAX_NAME_CHARS)}… [cut: 5000000 characters]`, key);
  assert.deepEqual(Object.keys(read), ["time", "toolbox", "server", "tool", "outcome", "durationMs", "resultBytes", "client", "session"]);
  const pair = `${"n".repeat(MAX_NAME_CHARS - 1)}😀${"n".repeat(10)}`;
  assert.equal(JSON.parse(auditLine(entry(pair))).tool, `${"n".repeat(MAX_NAME_CHARS - 1)}… [cut: ${pair.length} characters]`);
  const exact = "n".repeat(MAX_NAME_CHARS);
  assert.equal(JSON.parse(auditLine(entry(exact))).tool, exact, "at the bound: whole");
});
