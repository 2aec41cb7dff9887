/** open_toolbox over real stdio (spec 003): result shape, ordering, filters, errors, partial failure. */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { fixtureServer } from "../helpers/runtime.ts";
import { removeTempDirs, withWorkbench, textOf } from "../helpers/workbench.ts";
import { fixturePids } from "../helpers/procs.ts";
import {
  call,
  errorText,
  FIXTURE_TOOLS,
  fx,
  okText,
  opened,
  openToolbox,
  spawnLog,
  type ToolInfo,
  toolsOf,
  useTool,
} from "../helpers/toolbox.ts";

// The folders this file's tests made with tempDir() or spawnLog() go once they are done.
after(removeTempDirs);

const EMPTY = { type: "object" as const, properties: {}, required: [] as string[] };

/**
 * What open_toolbox must list for one fixture server, written out (not derived from the fixture or
 * the product): original names and descriptions, schemas as the server gave them, keys in the
 * contract's order, no description where the server gave none.
 */
function fixtureToolInfos(label: string, toolbox_name: string, source_server: string): ToolInfo[] {
  const at = { toolbox_name, source_server };
  return [
    {
      name: "echo",
      ...at,
      description: `${label}: echo the text back`,
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    },
    { name: "a__b", ...at, description: `${label}: name with a double underscore`, inputSchema: EMPTY },
    { name: "x-y.z", ...at, description: `${label}: name with a dash and a dot`, inputSchema: EMPTY },
    { name: "with space", ...at, description: `${label}: name with a space`, inputSchema: EMPTY },
    { name: "no_description", ...at, inputSchema: EMPTY },
    {
      name: "complex",
      ...at,
      description: `${label}: nested schema`,
      title: "Complex schema",
      inputSchema: {
        type: "object",
        properties: {
          filter: {
            type: "object",
            properties: { tags: { type: "array", items: { type: "string" } }, limit: { type: "integer", minimum: 1 } },
          },
          mode: { enum: ["fast", "slow"] },
        },
        required: ["filter"],
      },
      annotations: { readOnlyHint: true },
    },
    { name: "fail", ...at, description: `${label}: returns isError`, inputSchema: EMPTY },
    { name: "throw", ...at, description: `${label}: answers with a JSON-RPC error`, inputSchema: EMPTY },
    {
      name: "sleep",
      ...at,
      description: `${label}: waits ms milliseconds`,
      inputSchema: { type: "object", properties: { ms: { type: "number" } }, required: ["ms"] },
    },
    {
      name: "blob",
      ...at,
      description: `${label}: returns bytes characters`,
      inputSchema: { type: "object", properties: { bytes: { type: "number" } }, required: ["bytes"] },
    },
    {
      name: "structured",
      ...at,
      description: `${label}: returns structuredContent`,
      // outputSchema only for tools asked for by name (see context-economy.test.ts).
      inputSchema: EMPTY,
    },
    { name: "env", ...at, description: `${label}: returns its environment`, inputSchema: EMPTY },
    { name: "pid", ...at, description: `${label}: returns its process id`, inputSchema: EMPTY },
    {
      name: "exit",
      ...at,
      description: `${label}: exits the process with a code`,
      inputSchema: { type: "object", properties: { code: { type: "number" } }, required: [] },
    },
    {
      name: "progress",
      ...at,
      description: `${label}: reports progress steps`,
      inputSchema: { type: "object", properties: { steps: { type: "number" }, ms: { type: "number" } }, required: [] },
    },
    { name: "cancellations", ...at, description: `${label}: how many sleeps were cancelled`, inputSchema: EMPTY },
    { name: "ask", ...at, description: `${label}: asks the client to sample`, inputSchema: EMPTY },
    { name: "grandchild", ...at, description: `${label}: starts a sleeping grandchild`, inputSchema: EMPTY },
    {
      name: "log",
      ...at,
      description: `${label}: writes to stderr`,
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: [] },
    },
  ];
}

/** Each tool's keys in the contract's order: name, toolbox_name, source_server, description?, title?, inputSchema, outputSchema?, annotations?. */
const KEY_ORDER = ["name", "toolbox_name", "source_server", "description", "title", "inputSchema", "outputSchema", "annotations"];

const RESULT_KEYS = ["toolbox", "description", "servers_connected", "tools"];

test("open_toolbox: a single server gives compact JSON with the contract's keys, in order, tools unchanged", async () => {
  await withWorkbench({
    toolboxes: { dev: { description: "Development tools", mcpServers: { fx: fx("A") } } },
  }, async (session) => {
    const result = await openToolbox(session, "dev");
    const value = opened(result);
    assert.deepEqual(Object.keys(value), RESULT_KEYS);
    assert.equal(value.toolbox, "dev");
    assert.equal(value.description, "Development tools");
    assert.equal(value.servers_connected, 1);
    const expected = fixtureToolInfos("A", "dev", "fx");
    assert.deepEqual(value.tools, expected);
    for (const tool of value.tools) {
      const keys = Object.keys(tool);
      assert.deepEqual(keys, KEY_ORDER.filter((key) => keys.includes(key)), `key order of ${tool.name}`);
    }
    assert.equal("description" in value.tools.find((tool) => tool.name === "no_description")!, false);
  });
});

test("open_toolbox: several servers come in config order, each server's tools in its own order, same names told apart by source_server", async () => {
  await withWorkbench({
    toolboxes: {
      dev: { description: "Two of a kind", mcpServers: { zeta: fx("Z"), alpha: fx("A") } },
    },
  }, async (session) => {
    const value = opened(await openToolbox(session, "dev"));
    assert.deepEqual(Object.keys(value), RESULT_KEYS);
    assert.equal(value.servers_connected, 2);
    assert.deepEqual(value.tools, [...fixtureToolInfos("Z", "dev", "zeta"), ...fixtureToolInfos("A", "dev", "alpha")]);
    const echoes = value.tools.filter((tool) => tool.name === "echo");
    assert.deepEqual(
      echoes.map((tool) => [tool.source_server, tool.description]),
      [["zeta", "Z: echo the text back"], ["alpha", "A: echo the text back"]],
    );
    // The identifiers from the listing route to the right server.
    for (const tool of echoes) {
      const answer = await useTool(session, tool.toolbox_name, tool.source_server, tool.name, { text: "hi" });
      assert.equal(okText(answer), `${tool.source_server === "zeta" ? "Z" : "A"}: hi`);
    }
    // Asked for by name, a tool two servers share comes from both, in config order.
    const selected = opened(await call(session, "open_toolbox", { toolbox_name: "dev", tools: ["echo"] }));
    assert.deepEqual(selected.tools.map((tool) => [tool.name, tool.source_server]), [["echo", "zeta"], ["echo", "alpha"]]);
    assert.equal("_errors" in selected, false);
  });
});

test("open_toolbox: opening twice gives an identical result from the same server process", async () => {
  const log = spawnLog();
  await withWorkbench({
    toolboxes: { dev: { description: "d", mcpServers: { fx: fx("A", {}, log.env) } } },
  }, async (session) => {
    const first = await openToolbox(session, "dev");
    opened(first);
    const pidBefore = okText(await useTool(session, "dev", "fx", "pid"));
    const second = await openToolbox(session, "dev");
    assert.deepEqual(second, first);
    assert.equal(textOf(second), textOf(first));
    const pidAfter = okText(await useTool(session, "dev", "fx", "pid"));
    assert.equal(pidAfter, pidBefore, "no reconnection: the same child answers");
    assert.deepEqual(log.spawned(), [`A ${pidBefore}`], "started once");
    assert.deepEqual(fixturePids(session), [Number(pidBefore)]);
  });
});

test("open_toolbox: different toolboxes open side by side, each listing only its own servers", async () => {
  await withWorkbench({
    toolboxes: {
      dev: { description: "Development", mcpServers: { fx: fx("DEV") } },
      docs: { description: "Documentation", mcpServers: { search: fx("SEARCH"), wiki: fx("WIKI") } },
    },
  }, async (session) => {
    const dev = opened(await openToolbox(session, "dev"));
    const docs = opened(await openToolbox(session, "docs"));
    assert.deepEqual([dev.toolbox, dev.description, dev.servers_connected], ["dev", "Development", 1]);
    assert.deepEqual([docs.toolbox, docs.description, docs.servers_connected], ["docs", "Documentation", 2]);
    assert.deepEqual(dev.tools, fixtureToolInfos("DEV", "dev", "fx"));
    assert.deepEqual(docs.tools, [...fixtureToolInfos("SEARCH", "docs", "search"), ...fixtureToolInfos("WIKI", "docs", "wiki")]);
    // Opening the second did not disturb the first.
    assert.equal(okText(await useTool(session, "dev", "fx", "echo", { text: "x" })), "DEV: x");
    assert.equal(okText(await useTool(session, "docs", "wiki", "echo", { text: "y" })), "WIKI: y");
  });
});

test("open_toolbox: a server name reused in two toolboxes with different env runs as two processes", async () => {
  await withWorkbench({
    toolboxes: {
      dev: { description: "d", mcpServers: { fx: fx("DEV") } },
      prod: { description: "p", mcpServers: { fx: fx("PROD") } },
    },
  }, async (session) => {
    const dev = opened(await openToolbox(session, "dev"));
    const prod = opened(await openToolbox(session, "prod"));
    assert.equal(dev.tools[0].description, "DEV: echo the text back");
    assert.equal(prod.tools[0].description, "PROD: echo the text back");
    assert.equal(okText(await useTool(session, "dev", "fx", "echo", { text: "1" })), "DEV: 1");
    assert.equal(okText(await useTool(session, "prod", "fx", "echo", { text: "2" })), "PROD: 2");
    const devPid = Number(okText(await useTool(session, "dev", "fx", "pid")));
    const prodPid = Number(okText(await useTool(session, "prod", "fx", "pid")));
    assert.notEqual(devPid, prodPid);
    assert.deepEqual(fixturePids(session), [devPid, prodPid].sort((a, b) => a - b));
  });
});

test("open_toolbox: names holding separators (__, ., -, spaces) in toolbox, server and tool are listed and routed unchanged (spec SC-005)", async () => {
  await withWorkbench({
    toolboxes: {
      "team__dev": { description: "d", mcpServers: { "fs__main": fx("A"), "fs": fx("B") } },
      "team": { description: "t", mcpServers: { "dev__fs": fx("C") } },
    },
  }, async (session) => {
    const value = opened(await openToolbox(session, "team__dev"));
    const listed = value.tools.filter((tool) => ["a__b", "x-y.z", "with space"].includes(tool.name))
      .map((tool) => [tool.toolbox_name, tool.source_server, tool.name]);
    assert.deepEqual(listed, [
      ["team__dev", "fs__main", "a__b"],
      ["team__dev", "fs__main", "x-y.z"],
      ["team__dev", "fs__main", "with space"],
      ["team__dev", "fs", "a__b"],
      ["team__dev", "fs", "x-y.z"],
      ["team__dev", "fs", "with space"],
    ]);
    opened(await openToolbox(session, "team"));
    // A scheme that joined toolbox, server and tool with "__" could not tell these apart.
    for (const [toolbox, server, name, answer] of [
      ["team__dev", "fs__main", "a__b", "A ran 'a__b' with {}"],
      ["team__dev", "fs", "a__b", "B ran 'a__b' with {}"],
      ["team", "dev__fs", "a__b", "C ran 'a__b' with {}"],
      ["team__dev", "fs__main", "x-y.z", "A ran 'x-y.z' with {}"],
      ["team__dev", "fs__main", "with space", "A ran 'with space' with {}"],
    ]) {
      assert.equal(okText(await useTool(session, toolbox, server, name)), answer);
    }
  });
});

test("open_toolbox: a paginated tools/list is followed to the end", async () => {
  await withWorkbench({
    toolboxes: { dev: { description: "d", mcpServers: { paged: fx("P", {}, { FIXTURE_PAGE_SIZE: "3" }) } } },
  }, async (session) => {
    const value = opened(await openToolbox(session, "dev"));
    assert.deepEqual(value.tools.map((tool) => tool.name), FIXTURE_TOOLS);
    assert.deepEqual(value.tools, fixtureToolInfos("P", "dev", "paged"));
  });
});

test("open_toolbox: toolFilters absent or [\"*\"] keep all tools, a list keeps those in server order, [] keeps none", async () => {
  await withWorkbench({
    toolboxes: {
      dev: {
        description: "filters",
        mcpServers: {
          absent: fx("A"),
          star: fx("S", { toolFilters: ["*"] }),
          some: fx("L", { toolFilters: ["pid", "echo"] }),
          none: fx("N", { toolFilters: [] }),
        },
      },
    },
  }, async (session) => {
    const value = opened(await openToolbox(session, "dev"));
    assert.equal(value.servers_connected, 4, "a server filtered down to nothing is still connected");
    assert.deepEqual(toolsOf(value, "absent"), FIXTURE_TOOLS);
    assert.deepEqual(toolsOf(value, "star"), FIXTURE_TOOLS);
    assert.deepEqual(toolsOf(value, "some"), ["echo", "pid"]);
    assert.deepEqual(toolsOf(value, "none"), []);
    assert.deepEqual(
      [...new Set(value.tools.map((tool) => tool.source_server))],
      ["absent", "star", "some"],
    );
    assert.equal("_errors" in value, false);
  });
});

test("open_toolbox: an unknown toolbox is an error naming the available ones", async () => {
  await withWorkbench({
    toolboxes: {
      dev: { description: "d", mcpServers: { fx: fx("A") } },
      other: { description: "o", mcpServers: {} },
    },
  }, async (session) => {
    assert.equal(
      errorText(await openToolbox(session, "production")),
      "Toolbox 'production' not found in configuration; available toolboxes: 'dev', 'other'",
    );
    // Names are case-sensitive.
    assert.equal(
      errorText(await openToolbox(session, "Dev")),
      "Toolbox 'Dev' not found in configuration; available toolboxes: 'dev', 'other'. Did you mean 'dev'?",
    );
  });
});

test("open_toolbox: with no toolboxes configured the not-found error says so", async () => {
  await withWorkbench({ toolboxes: {} }, async (session) => {
    assert.equal(
      errorText(await openToolbox(session, "production")),
      "Toolbox 'production' not found in configuration; no toolboxes are configured",
    );
  });
});

test("open_toolbox: invalid parameters are errors with exact messages", async () => {
  await withWorkbench({ toolboxes: { dev: { description: "d", mcpServers: {} } } }, async (session) => {
    assert.equal(errorText(await openToolbox(session, "")), "Invalid parameters: toolbox_name cannot be empty");
    assert.equal(errorText(await openToolbox(session, "   ")), "Invalid parameters: toolbox_name cannot be empty");
    assert.equal(
      errorText(await call(session, "open_toolbox", { toolbox_name: "dev", extra_field: 1 })),
      "Invalid parameters: Unrecognized key: 'extra_field'",
    );
    assert.equal(errorText(await call(session, "open_toolbox", {})), "Invalid parameters: toolbox_name is required");
  });
});

test("open_toolbox: a command that does not exist is reported in _errors, the other server still lists its tools", async () => {
  await withWorkbench({
    toolboxes: {
      dev: { description: "d", mcpServers: { fx: fx("A"), broken: { command: "definitely-not-a-command-xyz", env: { PATH: "/opt/none/bin:/usr/none" } } } },
    },
  }, async (session) => {
    const value = opened(await openToolbox(session, "dev"));
    assert.deepEqual(Object.keys(value), [...RESULT_KEYS, "_errors"]);
    assert.equal(value.servers_connected, 1);
    assert.deepEqual(value.tools, fixtureToolInfos("A", "dev", "fx"));
    assert.deepEqual(value._errors, [
      "Failed to connect to server 'broken' in toolbox 'dev': Cannot start 'definitely-not-a-command-xyz': command not found on PATH '/opt/none/bin:/usr/none'",
    ]);
  });
});

test("open_toolbox: a server that never answers times out after connectTimeoutMs and is reported in _errors", async () => {
  await withWorkbench({
    toolboxes: {
      dev: {
        description: "d",
        mcpServers: { fx: fx("A"), slow: fixtureServer("silent-server.ts", { connectTimeoutMs: 500 }) },
      },
    },
  }, async (session) => {
    const started = performance.now();
    const value = opened(await openToolbox(session, "dev"));
    const elapsed = performance.now() - started;
    assert.equal(value.servers_connected, 1);
    assert.deepEqual(toolsOf(value, "fx"), FIXTURE_TOOLS);
    assert.deepEqual(value._errors, [
      "Failed to connect to server 'slow' in toolbox 'dev': connection timeout after 500 ms (connectTimeoutMs)",
    ]);
    assert.ok(elapsed < 10_000, `open_toolbox took ${elapsed} ms`);
  });
});

test("open_toolbox: a server that fails to start says why: its last stderr lines follow the exit or the timeout", async () => {
  const say = (lines: string) => `printf '${lines}' >&2`;
  await withWorkbench({
    toolboxes: {
      dev: {
        description: "d",
        mcpServers: {
          fx: fx("A"),
          crash: { command: "sh", args: ["-c", `${say("loading\\n\\nstep 2\\nstep 3\\nError: Cannot find module /srv/server.js\\n")}; exit 1`] },
          keyless: { command: "sh", args: ["-c", `${say("MY_API_KEY is not set")}; exit 2`] },
          stuck: { command: "sh", args: ["-c", `${say("waiting for the database\\n")}; exec sleep 60`], connectTimeoutMs: 1_500 },
        },
      },
    },
  }, async (session) => {
    const value = opened(await openToolbox(session, "dev"));
    assert.equal(value.servers_connected, 1);
    assert.deepEqual(value._errors, [
      "Failed to connect to server 'crash' in toolbox 'dev': server exited with code 1 during initialization; " +
      "its stderr ended with: step 2 | step 3 | Error: Cannot find module /srv/server.js",
      "Failed to connect to server 'keyless' in toolbox 'dev': server exited with code 2 during initialization; " +
      "its stderr ended with: MY_API_KEY is not set",
      "Failed to connect to server 'stuck' in toolbox 'dev': connection timeout after 1500 ms (connectTimeoutMs); " +
      "its stderr ended with: waiting for the database",
    ]);
    // use_tool starts it again, and its error says why too.
    assert.equal(
      errorText(await useTool(session, "dev", "keyless", "echo")),
      "Error executing tool 'echo' in server 'keyless' (toolbox 'dev'): failed to start: server exited with code 2 " +
        "during initialization; its stderr ended with: MY_API_KEY is not set",
    );
  });
});

test("open_toolbox: a server that exits during initialization is reported with its exit code", async () => {
  await withWorkbench({
    toolboxes: {
      dev: { description: "d", mcpServers: { fx: fx("A"), quitter: { command: "sh", args: ["-c", "exit 3"] } } },
    },
  }, async (session) => {
    const value = opened(await openToolbox(session, "dev"));
    assert.equal(value.servers_connected, 1);
    assert.deepEqual(toolsOf(value, "fx"), FIXTURE_TOOLS);
    assert.deepEqual(value._errors, [
      "Failed to connect to server 'quitter' in toolbox 'dev': server exited with code 3 during initialization",
    ]);
  });
});

test("open_toolbox: when every server fails the result is an error with one line per server", async () => {
  await withWorkbench({
    toolboxes: {
      dev: {
        description: "d",
        mcpServers: {
          broken: { command: "definitely-not-a-command-xyz", env: { PATH: "/opt/none/bin:/usr/none" } },
          quitter: { command: "sh", args: ["-c", "exit 3"] },
        },
      },
    },
  }, async (session) => {
    const text = errorText(await openToolbox(session, "dev"));
    assert.ok(text.startsWith("All servers in toolbox 'dev' failed to connect:"), text);
    assert.deepEqual(text.split("\n"), [
      "All servers in toolbox 'dev' failed to connect:",
      "Failed to connect to server 'broken' in toolbox 'dev': Cannot start 'definitely-not-a-command-xyz': command not found on PATH '/opt/none/bin:/usr/none'",
      "Failed to connect to server 'quitter' in toolbox 'dev': server exited with code 3 during initialization",
    ]);
  });
});

test("open_toolbox: a toolbox with no servers opens with zero servers and no tools", async () => {
  await withWorkbench({ toolboxes: { empty: { description: "Nothing here", mcpServers: {} } } }, async (session) => {
    const result = await openToolbox(session, "empty");
    const value = opened(result);
    assert.equal(textOf(result), '{"toolbox":"empty","description":"Nothing here","servers_connected":0,"tools":[]}');
    assert.deepEqual(value, { toolbox: "empty", description: "Nothing here", servers_connected: 0, tools: [] });
  });
});

test("open_toolbox: five concurrent opens give identical results and spawn each server once", async () => {
  const log = spawnLog();
  await withWorkbench({
    toolboxes: { dev: { description: "d", mcpServers: { one: fx("ONE", {}, log.env), two: fx("TWO", {}, log.env) } } },
  }, async (session) => {
    assert.deepEqual(fixturePids(session), [], "nothing is spawned before the toolbox is opened");
    const results = await Promise.all(Array.from({ length: 5 }, () => openToolbox(session, "dev")));
    const texts = results.map((result) => {
      opened(result);
      return textOf(result);
    });
    assert.equal(new Set(texts).size, 1, "all five results are identical");
    assert.equal(opened(results[0]).servers_connected, 2);
    const pids = fixturePids(session);
    assert.equal(pids.length, 2, `one process per configured server, found ${JSON.stringify(pids)}`);
    const one = Number(okText(await useTool(session, "dev", "one", "pid")));
    const two = Number(okText(await useTool(session, "dev", "two", "pid")));
    assert.deepEqual([one, two].sort((a, b) => a - b), pids);
    assert.deepEqual(log.spawned(), [`ONE ${one}`, `TWO ${two}`], "each started once");
  });
});

test("open_toolbox: a tool whose outputSchema no validator can compile is listed as it is", async () => {
  await withWorkbench({ toolboxes: { dev: { description: "d", mcpServers: { fx: fx("A", {}, { FIXTURE_DANGLING_REF: "1" }) } } } }, async (session) => {
    // outputSchema is shown for tools asked for by name.
    const value = opened(await call(session, "open_toolbox", { toolbox_name: "dev", tools: ["dangling_ref"] }));
    assert.equal(value.servers_connected, 1);
    const tool = value.tools.find((t) => t.name === "dangling_ref");
    assert.deepEqual(tool?.outputSchema, { type: "object", properties: { a: { $ref: "#/definitions/missing" } } });
  });
});
