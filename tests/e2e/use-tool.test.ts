/** use_tool over real stdio (spec 000, error cases of 001): routing, passthrough, lookup and validation errors. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { withWorkbench, textOf } from "../helpers/workbench.ts";
import { call, errorText, eventually, fx, okText, opened, openToolbox, useTool } from "../helpers/toolbox.ts";

const INVALID = "Invalid tool invocation parameters";
/** A toolbox `dev` with one fixture server `fx`, labelled A. */
const ONE_FIXTURE = { toolboxes: { dev: { description: "d", mcpServers: { fx: fx("A") } } } };

test("use_tool: routes by toolbox, server and name and returns the downstream result unchanged", async () => {
  await withWorkbench(ONE_FIXTURE, async (session) => {
    opened(await openToolbox(session, "dev"));
    const result = await useTool(session, "dev", "fx", "echo", { text: "hello" });
    assert.deepEqual(result, { content: [{ type: "text", text: "A: hello" }] });
  });
});

test("use_tool: tools named a__b, x-y.z and 'with space' are callable by their original names", async () => {
  await withWorkbench(ONE_FIXTURE, async (session) => {
    opened(await openToolbox(session, "dev"));
    for (const name of ["a__b", "x-y.z", "with space"]) {
      assert.equal(okText(await useTool(session, "dev", "fx", name, { k: 1 })), `A ran '${name}' with {"k":1}`);
    }
  });
});

test("use_tool: arguments may be left out (defaults to {}) or given as {}", async () => {
  await withWorkbench(ONE_FIXTURE, async (session) => {
    opened(await openToolbox(session, "dev"));
    const omitted = await call(session, "use_tool", { tool: { toolbox: "dev", server: "fx", name: "a__b" } });
    assert.equal(okText(omitted), "A ran 'a__b' with {}");
    const empty = await call(session, "use_tool", { tool: { toolbox: "dev", server: "fx", name: "a__b" }, arguments: {} });
    assert.equal(okText(empty), "A ran 'a__b' with {}");
  });
});

test("use_tool: a server named like one of its tools works", async () => {
  await withWorkbench({
    toolboxes: { echo: { description: "d", mcpServers: { echo: fx("E") } } },
  }, async (session) => {
    opened(await openToolbox(session, "echo"));
    assert.equal(okText(await useTool(session, "echo", "echo", "echo", { text: "same" })), "E: same");
  });
});

test("use_tool: the same tool name in two servers and in two toolboxes reaches the right process", async () => {
  await withWorkbench({
    toolboxes: {
      dev: { description: "d", mcpServers: { one: fx("DEV-ONE"), two: fx("DEV-TWO") } },
      prod: { description: "p", mcpServers: { one: fx("PROD-ONE") } },
    },
  }, async (session) => {
    opened(await openToolbox(session, "dev"));
    opened(await openToolbox(session, "prod"));
    assert.equal(okText(await useTool(session, "dev", "one", "echo", { text: "a" })), "DEV-ONE: a");
    assert.equal(okText(await useTool(session, "dev", "two", "echo", { text: "b" })), "DEV-TWO: b");
    assert.equal(okText(await useTool(session, "prod", "one", "echo", { text: "c" })), "PROD-ONE: c");
    // Different tools of the same server, too.
    assert.equal(okText(await useTool(session, "dev", "two", "a__b")), "DEV-TWO ran 'a__b' with {}");
  });
});

test("use_tool: a downstream isError result is passed through with the server's own text", async () => {
  await withWorkbench(ONE_FIXTURE, async (session) => {
    opened(await openToolbox(session, "dev"));
    const result = await useTool(session, "dev", "fx", "fail");
    assert.deepEqual(result, { content: [{ type: "text", text: "A: this tool failed" }], isError: true });
  });
});

test("use_tool: structuredContent and _meta come back unchanged", async () => {
  await withWorkbench(ONE_FIXTURE, async (session) => {
    opened(await openToolbox(session, "dev"));
    const result = await useTool(session, "dev", "fx", "structured");
    assert.deepEqual(result.structuredContent, { label: "A", n: 42 });
    assert.deepEqual(result._meta, { fixture: "A" });
    assert.deepEqual(result.content, [{ type: "text", text: '{"label":"A","n":42}' }]);
    assert.equal("isError" in result, false);
  });
});

test("use_tool: a downstream JSON-RPC error becomes isError with toolbox, server and tool context", async () => {
  await withWorkbench(ONE_FIXTURE, async (session) => {
    opened(await openToolbox(session, "dev"));
    assert.equal(
      errorText(await useTool(session, "dev", "fx", "throw")),
      "Error executing tool 'throw' in server 'fx' (toolbox 'dev'): MCP error -32603: A threw on purpose",
    );
  });
});

test("use_tool: with validateArguments false the workbench does not check arguments, the downstream gets them as given", async () => {
  await withWorkbench({
    toolboxes: { dev: { description: "d", mcpServers: { fx: fx("A", { validateArguments: false }) } } },
  }, async (session) => {
    opened(await openToolbox(session, "dev"));
    // `complex` requires filter to be an object and knows no `bogus`; the fixture does not validate, so
    // whatever it answers is proof that the arguments reached it untouched.
    const args = { filter: "not an object", bogus: [1, { deep: null }] };
    const result = await useTool(session, "dev", "fx", "complex", args);
    const text = textOf(result);
    assert.ok(!text.startsWith(INVALID), text);
    assert.equal(text, `A ran 'complex' with ${JSON.stringify(args)}`);
    // A missing required argument is the downstream's business too.
    assert.equal(okText(await useTool(session, "dev", "fx", "echo", {})), "A: undefined");
  });
});

test("use_tool: lookup errors name the missing toolbox, server or tool exactly", async () => {
  await withWorkbench({
    toolboxes: {
      dev: { description: "d", mcpServers: { fx: fx("A"), filtered: fx("F", { toolFilters: ["echo"] }) } },
    },
  }, async (session) => {
    assert.equal(
      errorText(await useTool(session, "nope", "fx", "echo")),
      "Error executing tool: Toolbox 'nope' not found in configuration",
    );
    assert.equal(
      errorText(await useTool(session, "dev", "fx", "echo", { text: "x" })),
      `Error executing tool: Toolbox 'dev' is not open; call open_toolbox with {"toolbox_name": "dev"} first`,
    );
    opened(await openToolbox(session, "dev"));
    assert.equal(
      errorText(await useTool(session, "dev", "database", "query")),
      "Error executing tool: Server 'database' not found in toolbox 'dev'",
    );
    assert.equal(
      errorText(await useTool(session, "dev", "fx", "delete_all")),
      "Error executing tool: Tool 'delete_all' not found in server 'fx' (toolbox 'dev')",
    );
    // A tool excluded by toolFilters does not exist as far as use_tool is concerned (another server has it)...
    assert.equal(
      errorText(await useTool(session, "dev", "filtered", "pid")),
      "Error executing tool: Tool 'pid' not found in server 'filtered' (toolbox 'dev'). Did you mean server 'fx'?",
    );
    // ...while the one it keeps works.
    assert.equal(okText(await useTool(session, "dev", "filtered", "echo", { text: "kept" })), "F: kept");
    // The `server/name` form `tools` prints, given as the name: the name alone was meant (issue 41).
    assert.equal(
      errorText(await useTool(session, "dev", "fx", "fx/echo", { text: "x" })),
      `Error executing tool: Tool 'fx/echo' not found in server 'fx' (toolbox 'dev'). Did you mean 'echo'? ("name" is the tool's own name, without its server)`,
    );
    assert.equal(
      errorText(await useTool(session, "dev", "filtered", "fx/pid")),
      `Error executing tool: Tool 'fx/pid' not found in server 'filtered' (toolbox 'dev'). Did you mean server 'fx' and name 'pid'? ("name" is the tool's own name, without its server)`,
    );
  });
});

test("use_tool and open_toolbox: names that are keys of every object (constructor, toString, __proto__) are not found", async () => {
  await withWorkbench(ONE_FIXTURE, async (session) => {
    for (const name of ["constructor", "toString", "__proto__"]) {
      assert.equal(
        errorText(await useTool(session, name, "fx", "echo")),
        `Error executing tool: Toolbox '${name}' not found in configuration`,
      );
      assert.equal(
        errorText(await openToolbox(session, name)),
        `Toolbox '${name}' not found in configuration; available toolboxes: 'dev'`,
      );
    }
    opened(await openToolbox(session, "dev"));
    for (const name of ["constructor", "toString", "__proto__"]) {
      assert.equal(
        errorText(await useTool(session, "dev", name, "echo")),
        `Error executing tool: Server '${name}' not found in toolbox 'dev'`,
      );
      assert.equal(
        errorText(await useTool(session, "dev", "fx", name)),
        `Error executing tool: Tool '${name}' not found in server 'fx' (toolbox 'dev')`,
      );
    }
  });
});

test("use_tool: invalid invocations are errors with exact validation messages", async () => {
  await withWorkbench(ONE_FIXTURE, async (session) => {
    opened(await openToolbox(session, "dev"));
    const invoke = async (args: Record<string, unknown>) => errorText(await call(session, "use_tool", args));
    const id = { toolbox: "dev", server: "fx", name: "echo" };
    assert.equal(await invoke({ tool: { ...id, toolbox: "" } }), `${INVALID}: tool.toolbox: Toolbox name cannot be empty`);
    assert.equal(await invoke({ tool: { ...id, server: "" } }), `${INVALID}: tool.server: Server name cannot be empty`);
    assert.equal(await invoke({ tool: { ...id, name: "" } }), `${INVALID}: tool.name: Tool name cannot be empty`);
    assert.equal(await invoke({ tool: { toolbox: "dev", name: "echo" } }), `${INVALID}: tool.server: Server name is required`);
    const oldForm = await invoke({ tool: { toolbox: "dev", server: "fx", tool: "echo" } });
    assert.ok(oldForm.includes("Unrecognized key: 'tool'"), oldForm);
    // A wrong shape is followed by the call it should have been (see context-economy.test.ts).
    const example = (args = "{}") => `\nExample: {"tool": {"toolbox": "dev", "server": "fx", "name": "echo"}, "arguments": ${args}}`;
    assert.equal(oldForm, `${INVALID}: tool: Unrecognized key: 'tool'; tool.name: Tool name is required${example()}`);
    assert.equal(
      await invoke({ tool: id, extra_field: true }),
      `${INVALID}: Unrecognized key: 'extra_field'${example('{"extra_field": true}')}`,
    );
    assert.equal(await invoke({ tool: id, arguments: "x" }), `${INVALID}: arguments: Expected an object${example()}`);
    assert.equal(
      await invoke({ arguments: {} }),
      `${INVALID}: tool: Tool identifier is required\nExample: {"tool": {"toolbox": "<toolbox>", "server": "<server>", "name": "<name>"}, "arguments": {}}`,
    );
  });
});

test("use_tool: a 5 MB result comes back intact with maxResultTokens 0 (never cut)", async () => {
  await withWorkbench({ ...ONE_FIXTURE, maxResultTokens: 0 }, async (session) => {
    opened(await openToolbox(session, "dev"));
    const bytes = 5 * 1024 * 1024;
    const text = okText(await useTool(session, "dev", "fx", "blob", { bytes }));
    assert.equal(text.length, bytes);
    assert.ok(/^x+$/.test(text), "only the characters the server sent");
  });
});

test("use_tool: a server that exited is started again by the next call; the others are not touched", async () => {
  await withWorkbench({
    toolboxes: { dev: { description: "d", mcpServers: { fx: fx("A"), other: fx("B") } } },
  }, async (session) => {
    opened(await openToolbox(session, "dev"));
    const otherPid = okText(await useTool(session, "dev", "other", "pid"));
    assert.equal(okText(await useTool(session, "dev", "fx", "exit", { code: 3 })), "exiting");
    // The next call once the workbench has seen the exit (it says so), not after a guessed time.
    await eventually("the exit seen", () => session.stderr(), (text) => /^\[dev\/fx\] server exited with code 3$/m.test(text));
    assert.equal(okText(await useTool(session, "dev", "fx", "echo", { text: "anyone?" })), "A: anyone?");
    assert.equal(okText(await useTool(session, "dev", "other", "echo", { text: "still here" })), "B: still here");
    assert.equal(okText(await useTool(session, "dev", "other", "pid")), otherPid);
  });
});
