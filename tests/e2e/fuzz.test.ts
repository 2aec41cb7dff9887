/**
 * A seeded mutation fuzz of the client side of stdio (issue 13): thousands of damaged messages in
 * one session. The session must survive them all, and no answer may carry an id the client did not
 * send. The seed and count are fixed, so a failure is repeatable; change FUZZ_SEED to explore.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { startRaw } from "../helpers/raw-session.ts";
import { isAlive } from "../helpers/procs.ts";
import { seeded } from "../helpers/seeded.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 0x13c0ffee);
const MUTANTS = 5_000;

const BASES = [
  { jsonrpc: "2.0", id: 2, method: "ping" },
  { jsonrpc: "2.0", id: "s", method: "tools/list", params: {} },
  { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "open_toolbox", arguments: { toolbox_name: "dev" } } },
  {
    jsonrpc: "2.0",
    id: 4,
    method: "tools/call",
    params: { name: "use_tool", arguments: { tool: { toolbox: "dev", server: "s", name: "t" }, arguments: { a: [1, { b: "c" }] } }, _meta: { progressToken: 9 } },
  },
  { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3, reason: "r" } },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 5, result: { content: [] } },
  { jsonrpc: "2.0", id: 6, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "f", version: "1" } } },
].map((message) => JSON.stringify(message));

const ALPHABET = ['{', '}', '[', ']', '"', ":", ",", "0", "9", "-", ".", "e", "E", "+", "\\", "u", "n", "t", "f", " ", "\u00e9", "\ud83d", "\u0000", "\r"];
const ODD_IDS = ["null", "true", "{}", "[]", "1.5", "-0", "1e400", "9007199254740993", '"\\ud800"', '""', "123456789012345678901234567890"];


function mutate(text: string, next: () => number): string {
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)];
  const at = () => Math.floor(next() * (text.length + 1));
  switch (Math.floor(next() * 8)) {
    case 0: {
      const i = at();
      return text.slice(0, i) + pick(ALPHABET) + text.slice(i);
    }
    case 1: {
      const i = at();
      return text.slice(0, i) + text.slice(i + 1 + Math.floor(next() * 4));
    }
    case 2: {
      const i = at();
      const j = Math.min(text.length, i + Math.floor(next() * 20));
      return text.slice(0, j) + text.slice(i, j) + text.slice(j);
    }
    case 3:
      return text.slice(0, at());
    case 4:
      return text.replace(/"id":("[^"]*"|-?\d+)/, `"id":${pick(ODD_IDS)}`);
    case 5: {
      // Now and then deep enough to overflow any stack that walks it (about 40,000 levels do).
      const levels = next() < 0.06 ? 60_000 : 500 + Math.floor(next() * 3_000);
      const deep = "[".repeat(levels) + "]".repeat(levels);
      return next() < 0.5 ? text.replace(/"params":/, `"params":{"x":${deep}},"p":`) : text.replace(/^\{/, `{"u":${deep},`);
    }
    case 6:
      return text.replace(/"(method|jsonrpc|params|result)"/, `"${pick(["method", "id", "jsonrpc", "params", "result", "error"])}"`);
    default: {
      const i = at();
      const code = text.charCodeAt(i) ^ (1 << Math.floor(next() * 7));
      return text.slice(0, i) + String.fromCharCode(code) + text.slice(i + 1);
    }
  }
}

/** The ids a line carries that the workbench may answer with, as JSON text. */
function answerableIds(lines: string[]): Set<string> {
  const ids = new Set<string>();
  for (const line of lines) {
    try {
      const value = JSON.parse(line);
      const id = value?.id;
      if (typeof id === "string" || Number.isSafeInteger(id)) ids.add(JSON.stringify(id));
    } catch {
      // Not JSON: answered with id null, if at all.
    }
  }
  return ids;
}

test(`e2e fuzz: ${MUTANTS} seeded mutants (seed 0x${SEED.toString(16)}) never end the session or bring back an id never sent`, async () => {
  const next = seeded(SEED);
  const mutants = Array.from({ length: MUTANTS }, () => {
    let text = BASES[Math.floor(next() * BASES.length)];
    const rounds = 1 + Math.floor(next() * 3);
    for (let round = 0; round < rounds; round++) text = mutate(text, next);
    return text;
  });
  // The workbench splits on \n and drops one \r before it: the same lines here.
  const lines = mutants.join("\n").split("\n").map((line) => line.replace(/\r$/, ""));
  const allowed = answerableIds(lines);
  const session = await startRaw({ toolboxes: { dev: { mcpServers: {} } } });
  try {
    for (let start = 0; start < mutants.length; start += 500) {
      await session.write(mutants.slice(start, start + 500).join("\n") + "\n");
    }
    await session.write('{"jsonrpc":"2.0","id":"fuzz-end","method":"ping"}\n');
    const end = await session.answer("fuzz-end", 30_000);
    assert.deepEqual(end.result, {});
    assert.ok(isAlive(session.pid));
    allowed.add(JSON.stringify(1));
    allowed.add(JSON.stringify("fuzz-end"));
    const strays = session.replies.filter((reply) => reply.id !== null && !allowed.has(JSON.stringify(reply.id)));
    assert.deepEqual(strays, []);
    assert.doesNotMatch(session.stderr(), /Read failed|Maximum call stack|Uncaught/);
  } finally {
    await session.close();
  }
});
