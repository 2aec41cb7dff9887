/** The official reference servers from npm behind one toolbox, run by the current runtime. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { npmServer } from "../helpers/runtime.ts";
import { type Session, startWorkbench, tempDir, textOf } from "../helpers/workbench.ts";
import { errorText, okText, opened, openToolbox, toolsOf, useTool } from "../helpers/toolbox.ts";

const FILE_CONTENT = "hello from the workbench e2e test\nsecond line\n";

/** One toolbox `ref` with everything, memory and filesystem; files live in a temp dir of their own. */
async function startReference(): Promise<{ session: Session; data: string; allowed: string; file: string }> {
  const data = tempDir();
  const allowed = `${data}/allowed`;
  mkdirSync(allowed);
  const file = `${allowed}/note.txt`;
  writeFileSync(file, FILE_CONTENT);
  writeFileSync(`${data}/outside.txt`, "secret\n");
  try {
    const session = await startWorkbench({
      toolboxes: {
        ref: {
          description: "Reference servers",
          mcpServers: {
            everything: npmServer("everything"),
            memory: { ...npmServer("memory"), env: { MEMORY_FILE_PATH: `${data}/memory.jsonl` } },
            filesystem: npmServer("filesystem", [allowed]),
          },
        },
      },
    });
    return { session, data, allowed, file };
  } catch (error) {
    rmSync(data, { recursive: true, force: true });
    throw error;
  }
}

test("reference servers: everything, memory and filesystem open together in one toolbox", async () => {
  const { session, data } = await startReference();
  try {
    const value = opened(await openToolbox(session, "ref"));
    assert.equal(value.servers_connected, 3);
    assert.equal("_errors" in value, false, JSON.stringify(value._errors));
    assert.deepEqual([...new Set(value.tools.map((tool) => tool.source_server))], ["everything", "memory", "filesystem"]);
    assert.ok(toolsOf(value, "everything").includes("echo"));
    for (const name of ["create_entities", "read_graph"]) assert.ok(toolsOf(value, "memory").includes(name), name);
    assert.ok(toolsOf(value, "filesystem").includes("read_text_file"));
    for (const tool of value.tools) {
      assert.equal(tool.toolbox_name, "ref");
      assert.equal(tool.inputSchema.type, "object", `${tool.source_server}/${tool.name}`);
    }
    // everything's echo answers through use_tool.
    const echoed = okText(await useTool(session, "ref", "everything", "echo", { message: "hi" }));
    assert.ok(echoed.includes("hi"), echoed);
  } finally {
    await session.close();
    rmSync(data, { recursive: true, force: true });
  }
});

test("reference servers: memory keeps an entity created through use_tool", async () => {
  const { session, data } = await startReference();
  try {
    opened(await openToolbox(session, "ref"));
    const entity = { name: "workbench_e2e_entity", entityType: "test", observations: ["made by the e2e suite"] };
    const created = await useTool(session, "ref", "memory", "create_entities", { entities: [entity] });
    assert.equal(created.isError ?? false, false, JSON.stringify(created));
    const graph = okText(await useTool(session, "ref", "memory", "read_graph"));
    assert.ok(graph.includes("workbench_e2e_entity"), graph);
    assert.ok(graph.includes("made by the e2e suite"), graph);
  } finally {
    await session.close();
    rmSync(data, { recursive: true, force: true });
  }
});

test("reference servers: filesystem reads an allowed file and its own refusal outside comes back as isError", async () => {
  const { session, data, file } = await startReference();
  try {
    opened(await openToolbox(session, "ref"));
    const read = await useTool(session, "ref", "filesystem", "read_text_file", { path: file });
    assert.equal(read.isError ?? false, false, JSON.stringify(read));
    assert.equal(textOf(read), FILE_CONTENT);

    const outside = errorText(await useTool(session, "ref", "filesystem", "read_text_file", { path: `${data}/outside.txt` }));
    assert.ok(!outside.startsWith("Error executing tool"), `not a workbench error: ${outside}`);
    assert.ok(!outside.startsWith("Invalid tool invocation parameters"), outside);
    assert.match(outside, /access denied|outside allowed/i);
    assert.ok(!outside.includes("secret"), "the file was not read");
  } finally {
    await session.close();
    rmSync(data, { recursive: true, force: true });
  }
});
