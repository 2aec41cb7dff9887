/**
 * Figure 8's harness (issue 28), run once: the chain task through use_tool gives the answer and
 * counts what it costs; the run_code side gets the same answer in one round trip for at least 90%
 * fewer bytes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { after } from "node:test";
import { chainTable, ENTITIES, entity, measureChain, SCRIPT } from "../../scripts/bench/chain.ts";
import { runtimeName } from "../helpers/runtime.ts";
import { referenceTools } from "../helpers/reference-tools.ts";
import { toolboxDeclarations } from "../../src/code/declarations.ts";
import { compileProblems } from "../helpers/typescript.ts";
import { removeTempDirs, tempDir } from "../helpers/workbench.ts";

after(removeTempDirs);

test("bench chain: both ways count the ports right; use_tool pays a round trip per call, run_code one for all", async (t) => {
  const figures = await measureChain(runtimeName === "deno" ? "deno" : "bun");
  t.diagnostic(chainTable(figures));
  assert.equal(figures.useTool.answer, ENTITIES / 2);
  assert.equal(figures.useTool.roundTrips, ENTITIES + 1);
  assert.equal(figures.useToolBatched.answer, ENTITIES / 2);
  assert.equal(figures.useToolBatched.roundTrips, 2);
  assert.ok(figures.useTool.resultBytes > figures.useToolBatched.resultBytes);
  assert.equal(figures.useTool.contextBytes, figures.useTool.requestBytes + figures.useTool.resultBytes);
  assert.ok(figures.openToolboxBytes > 0);
  assert.ok(!("skipped" in figures.runCode), "skipped" in figures.runCode ? figures.runCode.skipped : "");
  assert.equal(figures.runCode.answer, ENTITIES / 2);
  assert.equal(figures.runCode.roundTrips, 1);
  assert.ok(figures.savedFraction! >= 0.9, `${(figures.savedFraction! * 100).toFixed(1)}% fewer bytes`);
});

test("bench chain: the run_code script checks against server-memory's declarations and, run by hand, writes what use_tool writes", async () => {
  const tools = await referenceTools("memory", [], { MEMORY_FILE_PATH: `${tempDir()}/memory.jsonl` });
  const declarations = toolboxDeclarations([{ name: "memory", tools }]);
  assert.deepEqual(compileProblems(`${declarations}\nexport async function script(): Promise<number> {\n${SCRIPT}\n}\n`), []);
  // The script's tools, as the contract says a call resolves: to structuredContent, else the text.
  const written: unknown[] = [];
  const fake = {
    memory: {
      create_entities: (args: { entities: unknown[] }) => Promise.resolve(written.push(...args.entities)),
      read_graph: () => Promise.resolve({ entities: written, relations: [] }),
    },
  };
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
  assert.equal(await new AsyncFunction("tools", SCRIPT)(fake), ENTITIES / 2);
  assert.deepEqual(
    [...written].sort((a, b) => (a as { name: string }).name.localeCompare((b as { name: string }).name)),
    Array.from({ length: ENTITIES }, (_, i) => entity(i)).sort((a, b) => a.name.localeCompare(b.name)),
  );
});
