/**
 * The README's main job (`npm run demo`), run through the workbench under test instead of a fresh
 * build: a newcomer watching it sees tools, a question a server asks during a call answered by the
 * client, a prompt and a resource, each through the workbench.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { repoRoot, runScript, workbenchCommand } from "../helpers/runtime.ts";
import { runToEnd } from "../helpers/process.ts";

test("demo: one session shows a tool of each server, a relayed question answered, a prompt and a resource", async () => {
  const { command, args } = workbenchCommand();
  const demo = runScript(`${repoRoot}/scripts/demo.ts`, ["--", command, ...args]);
  const result = await runToEnd(demo.command, demo.args, { env: { ...process.env } as Record<string, string>, timeoutMs: 50_000 });
  assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
  const out = result.stdout;
  for (const expected of [
    "Echo: hello through the workbench",
    "Hello from the filesystem server.",
    // The question went from server-everything through the workbench to the demo's client, and the answer back.
    "<- the server asks this client (elicitation/create, relayed by the workbench)",
    "- Name: Ada Lovelace",
    "What's weather in Lisbon?",
    "Resource 5: This is a plaintext resource",
    "Demo finished",
  ]) assert.ok(out.includes(expected), `"${expected}" missing from the demo's output:\n${out}`);
});
