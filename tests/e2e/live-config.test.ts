/**
 * The configuration applies live (issue 29, point 4): the file edited while a client is connected
 * over real stdio (the SDK client) takes effect without a restart. An added toolbox is usable at
 * once, an unchanged server keeps its process (its own pid says so), a changed one restarts with its
 * new settings after its calls in flight finish, an invalid edit keeps the configuration in force
 * (stderr says why, in check's words), a removed open toolbox answers like one never configured,
 * and the client hears prompts and resources list_changed (tools/list_changed only when the set of
 * meta-tools changes: their definitions stay as first listed). Last, a seeded burst of edits
 * while calls run on an unchanged server: no call fails and no process is left.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { renameSync, writeFileSync } from "node:fs";
import {
  type CallToolResult,
  Client,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "../helpers/sdk.ts";
import { removeTempDirs, type Session, startWorkbench, withWorkbench } from "../helpers/workbench.ts";
import {
  call,
  errorText,
  eventually,
  firstProgress,
  fx,
  okText,
  opened,
  openToolbox,
  sleep,
  spawnLog,
  toolsOf,
  useTool,
} from "../helpers/toolbox.ts";
import { fixtureServer } from "../helpers/runtime.ts";
import { descendants, fixturePids, waitGone } from "../helpers/procs.ts";
import { startRaw } from "../helpers/raw-session.ts";
import { seeded } from "../helpers/seeded.ts";

after(removeTempDirs);

/** Poll, settle and a margin on a loaded machine: an edit is in force within this. */
const APPLIED_MS = 15_000;

const configPath = (session: Session) => `${session.dir}/workbench-config.json`;

/** As an editor that saves by rename: a whole new file replaces the old one. */
function saveByRename(session: Session, config: unknown): void {
  const temporary = `${configPath(session)}.tmp`;
  writeFileSync(temporary, typeof config === "string" ? config : JSON.stringify(config, null, 2));
  renameSync(temporary, configPath(session));
}

async function pidOf(session: Session, toolbox: string, server: string): Promise<number> {
  return Number(okText(await useTool(session, toolbox, server, "pid")));
}

/** open_toolbox's description as tools/list gives it now. */
async function openDescription(session: Session): Promise<string> {
  const { tools } = await session.client.listTools();
  return tools.find((tool) => tool.name === "open_toolbox")!.description ?? "";
}

/** A client that counts the list notifications it gets. */
function countingClient() {
  const client = new Client({ name: "live-config-test", version: "1.0.0" });
  const heard = { tools: 0, prompts: 0, resources: 0 };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void heard.tools++);
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => void heard.prompts++);
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void heard.resources++);
  return { client, heard };
}

test("live configuration: a toolbox added is usable at once, an unchanged server keeps its process, the client hears prompts and resources list_changed and keeps its tools", async () => {
  const stable = fx("stable");
  const before = { toolboxes: { a: { description: "A", mcpServers: { s: stable } } } };
  const { client, heard } = countingClient();
  const session = await startWorkbench(before, {}, client);
  try {
    opened(await openToolbox(session, "a"));
    const description = await openDescription(session);
    const pid = await pidOf(session, "a", "s");
    const catalog = fixtureServer("catalog-server.ts", { env: { FIXTURE_LABEL: "cat", FIXTURE_RESOURCES: "cat://one" } });
    saveByRename(session, {
      toolboxes: {
        a: { description: "A", mcpServers: { s: stable } },
        b: { description: "Added later", mcpServers: { t: fx("added") } },
        c: { description: "Catalog", mcpServers: { cat: catalog } },
      },
    });
    await eventually("prompts and resources list_changed", () => ({ ...heard }), (h) => h.prompts >= 1 && h.resources >= 1, APPLIED_MS);
    // The meta-tools stay as the client first saw them (issue 39): no tools/list_changed, the same description.
    assert.equal(heard.tools, 0, "no tools/list_changed: the set of meta-tools is the same");
    assert.equal(await openDescription(session), description);
    // The added toolbox, opened and used in the same connection: no "not found".
    assert.deepEqual(toolsOf(opened(await openToolbox(session, "b")), "t").slice(0, 1), ["echo"]);
    assert.equal(okText(await useTool(session, "b", "t", "echo", { text: "hi" })), "added: hi");
    // The added server's prompt: found (its server started for it), then listed.
    const prompt = await session.client.getPrompt({ name: "c__cat__greet", arguments: { name: "you" } });
    assert.match(JSON.stringify(prompt.messages), /cat: hello you/);
    const { prompts } = await session.client.listPrompts();
    assert.ok(prompts.some((listed) => listed.name === "c__cat__greet"), JSON.stringify(prompts));
    // The unchanged server: the same process, still open.
    assert.equal(await pidOf(session, "a", "s"), pid);
    assert.match(session.stderr(), /applied the configuration from .*: 3 toolbox\(es\), 0 server\(s\) stopping/);
  } finally {
    await session.close();
  }
});

test("live configuration: a changed server drains its call in flight, then restarts with its new settings; filters apply without a restart", async () => {
  const log = spawnLog();
  // The label is in the tools' descriptions: pins would withhold them (tests/e2e/pins.test.ts covers that).
  const config = (label: string, filters?: string[]) => ({
    pin: false,
    toolboxes: {
      a: { description: "A", mcpServers: { s: fx(label, {}, log.env) } },
      f: { description: "F", mcpServers: { kept: fx("kept", filters ? { toolFilters: filters } : {}, log.env) } },
    },
  });
  await withWorkbench(config("old"), async (session) => {
    opened(await openToolbox(session, "a"));
    assert.equal(toolsOf(opened(await openToolbox(session, "f")), "kept").length > 2, true);
    const oldPid = await pidOf(session, "a", "s");
    const keptPid = await pidOf(session, "f", "kept");
    // A call in flight on the server about to change.
    const sleeping = firstProgress("the sleep");
    const inFlight = session.client.callTool(
      { name: "use_tool", arguments: { tool: { toolbox: "a", server: "s", name: "sleep" }, arguments: { ms: 2_500 } } },
      undefined,
      { timeout: 20_000, onprogress: sleeping.onprogress },
    ) as Promise<CallToolResult>;
    await sleeping.begun();
    writeFileSync(configPath(session), JSON.stringify(config("new", ["echo", "pid"])));
    await eventually("the new settings", async () => okText(await useTool(session, "a", "s", "echo", { text: "x" })), (text) => text === "new: x", APPLIED_MS);
    assert.equal(okText(await inFlight), "old slept 2500 ms", "the call in flight finished on the old process");
    assert.deepEqual(await waitGone([oldPid], 10_000), [], "the old process stopped after its call");
    assert.notEqual(await pidOf(session, "a", "s"), oldPid);
    // The filter change: the same process, a new view.
    assert.deepEqual(toolsOf(opened(await openToolbox(session, "f")), "kept"), ["echo", "pid"]);
    assert.equal(await pidOf(session, "f", "kept"), keptPid);
    assert.deepEqual(log.spawned().map((line) => line.split(" ")[0]), ["kept", "new", "old"], "one start each: no duplicate");
    assert.equal(fixturePids(session).length, 2);
  });
});

test("live configuration: an invalid edit keeps the configuration in force and stderr says why; a removed open toolbox answers like one never configured", async () => {
  const config = { toolboxes: { files: { description: "Files", mcpServers: { s: fx("files") } }, notes: { description: "Notes", mcpServers: { s: fx("notes") } } } };
  await withWorkbench(config, async (session) => {
    opened(await openToolbox(session, "notes"));
    writeFileSync(configPath(session), JSON.stringify({ toolboxes: { files: { description: 5, mcpServers: {} } } }));
    const expected = `mcp-workbench: In configuration file '${configPath(session)}': Invalid configuration at toolboxes.files.description: expected a string`;
    await eventually("the error on stderr", () => session.stderr(), (text) => text.includes(expected), APPLIED_MS);
    assert.match(session.stderr(), /The configuration in force stays until '.*' is valid again/);
    assert.equal(okText(await useTool(session, "notes", "s", "echo", { text: "still" })), "notes: still");

    writeFileSync(configPath(session), JSON.stringify({ toolboxes: { files: config.toolboxes.files } }));
    // open_toolbox's description stays as the client first saw it (issue 39): its answers follow the file.
    await eventually("notes to be gone", async () => JSON.stringify(await openToolbox(session, "notes")), (text) => text.includes("not found"), APPLIED_MS);
    // Exactly what a name never configured gets.
    assert.equal(
      errorText(await useTool(session, "notes", "s", "echo", { text: "gone" })),
      "Error executing tool: Toolbox 'notes' not found in configuration",
    );
    assert.equal(errorText(await openToolbox(session, "notes")), "Toolbox 'notes' not found in configuration; available toolboxes: 'files'");
    assert.equal(errorText(await useTool(session, "weather", "s", "echo", { text: "x" })), "Error executing tool: Toolbox 'weather' not found in configuration");
    // Keys read once at start are said to wait for the next start, never dropped in silence.
    writeFileSync(configPath(session), JSON.stringify({ auditArguments: true, toolboxes: { files: config.toolboxes.files } }));
    const later = "mcp-workbench: 'auditArguments' changed: applies at the next start, not while serving";
    await eventually("the key that waits for the next start named", () => session.stderr(), (text) => text.includes(later), APPLIED_MS);
    await eventually("the removed toolbox's server stopped", () => fixturePids(session).length, (n) => n === 0, APPLIED_MS);
  });
});

test("live configuration: a 2026-07-28 client hears tools, prompts and resources list_changed on its listen", async () => {
  const session = await startRaw({ toolboxes: { a: { description: "A", mcpServers: { s: fx("a") } } } }, { initialize: false });
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  try {
    const notifications = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true };
    await session.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "subscriptions/listen", params: { notifications, _meta: meta } }) + "\n");
    const ack = await session.reply((reply) => reply.method === "notifications/subscriptions/acknowledged");
    assert.equal(ack.params.notifications.toolsListChanged, true);
    // search_tools comes with it: the set of meta-tools changes, so tools/list_changed is sent.
    writeFileSync(`${session.dir}/workbench-config.json`, JSON.stringify({ toolSearch: true, toolboxes: { b: { description: "B", mcpServers: { s: fx("b") } } } }));
    for (const method of ["notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed"]) {
      const changed = await session.reply((reply) => reply.method === method, APPLIED_MS);
      assert.equal(changed.params._meta["io.modelcontextprotocol/subscriptionId"], 1);
    }
  } finally {
    await session.close();
  }
});


test("live configuration: 100 seeded edits while calls run on an unchanged server: no call fails, no process is left", async () => {
  const random = seeded(29);
  const stable = fx("stable");
  const EDITS = 100;
  const edit = (n: number) => {
    const toolboxes: Record<string, unknown> = {
      keep: { description: "Kept", mcpServers: { s: { ...stable, ...(random() < 0.5 && { toolFilters: ["echo", "pid", "sleep"] }) } } },
    };
    // A toolbox that comes and goes, and a server in it that changes.
    if (random() < 0.7) toolboxes.churn = { description: `Churn ${n % 3}`, mcpServers: { c: fx(`churn${Math.floor(random() * 3)}`) } };
    for (let extra = 0; extra < Math.floor(random() * 3); extra++) toolboxes[`x${extra}`] = { description: "X", mcpServers: {} };
    return { pin: false, toolboxes };
  };
  // The churn server's label is in its tools' descriptions: pins would withhold them.
  const initial = { pin: false, toolboxes: { keep: { description: "Kept", mcpServers: { s: stable } }, churn: { description: "Churn", mcpServers: { c: fx("churn0") } } } };
  const session = await startWorkbench(initial);
  let pids: number[] = [];
  try {
    opened(await openToolbox(session, "keep"));
    opened(await openToolbox(session, "churn"));
    const pid = await pidOf(session, "keep", "s");
    let calls = 0;
    const failures: string[] = [];
    let editing = true;
    const caller = async () => {
      while (editing) {
        const result = await useTool(session, "keep", "s", calls % 2 ? "echo" : "sleep", calls % 2 ? { text: "x" } : { ms: 30 });
        calls++;
        if (result.isError) failures.push(JSON.stringify(result));
      }
    };
    const callers = [caller(), caller(), caller()];
    for (let n = 0; n < EDITS; n++) {
      // One edit in ten is a file cut short (invalid JSON); half are saved by rename, half in place.
      const config = random() < 0.1 ? undefined : edit(n);
      const text = config ? JSON.stringify(config) : '{ "toolboxes": ';
      if (random() < 0.5) saveByRename(session, text);
      else writeFileSync(configPath(session), text);
      // Mostly bursts, now and then a pause long enough to apply.
      await sleep(random() < 0.15 ? 900 : random() * 60);
      // The churning toolbox opened again when it is there: its server starts (or restarts).
      if (config && "churn" in config.toolboxes && random() < 0.3) await call(session, "open_toolbox", { toolbox_name: "churn" });
    }
    // A final valid edit, left to settle: the churn toolbox open with one server.
    const final = { pin: false, toolboxes: { keep: { description: "Kept", mcpServers: { s: stable } }, churn: { description: "Final", mcpServers: { c: fx("final") } } } };
    writeFileSync(configPath(session), JSON.stringify(final));
    const churnDescription = async () => {
      const result = await openToolbox(session, "churn");
      return result.isError ? "" : JSON.parse(okText(result)).description;
    };
    await eventually("the final edit", churnDescription, (text) => text === "Final", APPLIED_MS);
    editing = false;
    await Promise.all(callers);
    assert.deepEqual(failures, [], `${calls} calls`);
    assert.ok(calls > 50, `calls ran throughout (${calls})`);
    assert.equal(await pidOf(session, "keep", "s"), pid, "the unchanged server kept its process");
    opened(await openToolbox(session, "churn"));
    assert.equal(okText(await useTool(session, "churn", "c", "echo", { text: "end" })), "final: end");
    // No duplicates, no ghosts: the kept server and the final one, nothing else.
    await eventually("two fixture processes", () => fixturePids(session).length, (n) => n === 2, APPLIED_MS);
    pids = descendants(session.pid).map((p) => p.pid);
    const applied = session.stderr().split("\n").filter((line) => line.includes("applied the configuration")).length;
    const rejected = session.stderr().split("\n").filter((line) => line.includes("The configuration in force stays")).length;
    assert.ok(applied >= 5 && rejected >= 1, `edits applied: ${applied}, rejected: ${rejected}`);
  } finally {
    await session.close();
  }
  assert.deepEqual(await waitGone(pids, 10_000), [], "no process is left after the workbench stops");
});
