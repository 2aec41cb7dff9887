/**
 * Prompts, resources and completions behind the workbench (issue 20, point 4), with
 * server-everything in two toolboxes (two definitions: two processes, the same prompt names).
 * One cache directory for two sessions: the second lists from the cache before anything starts.
 * Last, two catalog fixtures (tests/fixtures/catalog-server.ts), whose reads name the server that
 * answered, show which server owns a URI that one lists and another's tool returns.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, statSync } from "node:fs";
import {
  type CallToolResult,
  CompleteResultSchema,
  GetPromptResultSchema,
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  PromptListChangedNotificationSchema,
  ReadResourceResultSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "../../src/protocol/sdk.ts";
import { Client, StdioClientTransport } from "../helpers/sdk.ts";
import { fixtureServer, npmServer } from "../helpers/runtime.ts";
import { startWorkbench, tempDir } from "../helpers/workbench.ts";
import { eventually, openToolbox, sleep, useTool } from "../helpers/toolbox.ts";

const config = {
  toolboxes: {
    dev: { description: "Dev", mcpServers: { everything: npmServer("everything") } },
    // Another definition (its env differs): a second process whose prompts have the same names.
    ops: { description: "Ops", mcpServers: { everything: { ...npmServer("everything"), env: { OPS: "1" } } } },
  },
};

const IDLE_MS = 1_000;
const withIdleDev = {
  toolboxes: { ...config.toolboxes, dev: { description: "Dev", mcpServers: { everything: { ...npmServer("everything"), idleTimeoutMs: IDLE_MS } } } },
};

const parsed = (result: CallToolResult) => JSON.parse((result.content[0] as { text: string }).text);

test("prompts and resources: listed from the cache before any start, got, completed, read, subscribed, counted", async (t) => {
  const cacheDir = tempDir();
  const env = { WORKBENCH_CACHE_DIR: cacheDir };
  try {
    const first = await startWorkbench(config, env);
    try {
      let promptsChanged = 0;
      first.client.setNotificationHandler(PromptListChangedNotificationSchema, () => void promptsChanged++);

      await t.test("nothing is listed for servers never connected (and nothing starts)", async () => {
        const { prompts } = await first.client.request({ method: "prompts/list" }, ListPromptsResultSchema);
        assert.deepEqual(prompts, []);
      });

      await t.test("open_toolbox counts prompts and resources per server, and the client hears the list changed", async () => {
        const dev = parsed(await openToolbox(first, "dev"));
        const counts = dev.prompts_and_resources?.everything;
        assert.ok(counts.prompts > 0 && counts.resources > 0 && counts.resource_templates > 0, JSON.stringify(dev.prompts_and_resources));
        assert.ok(!("prompts" in dev.tools[0]), "no prompt enters the tool list");
        await openToolbox(first, "ops");
        await eventually("notifications/prompts/list_changed", () => promptsChanged, (n) => n >= 2);
      });
    } finally {
      await first.close();
    }

    // The same definitions (the cache's key ignores idleTimeoutMs); dev stops after a second without a call.
    const session = await startWorkbench(withIdleDev, env);
    try {
      const request = session.client.request.bind(session.client);

      await t.test("a new session lists both servers' prompts from the cache, named by origin, without collision", async () => {
        const { prompts } = await request({ method: "prompts/list" }, ListPromptsResultSchema);
        const names = prompts.map((prompt) => prompt.name);
        assert.ok(names.includes("dev__everything__args-prompt"), names.join(", "));
        assert.ok(names.includes("ops__everything__args-prompt"), names.join(", "));
        assert.equal(new Set(names).size, names.length);
        for (const name of names) assert.match(name, /^[A-Za-z0-9_-]{1,64}$/);
        const ops = prompts.find((prompt) => prompt.name === "ops__everything__args-prompt")!;
        assert.equal(ops.title, "Arguments Prompt (ops/everything)");
        assert.match(ops.description!, /\(from ops\/everything\)$/);
      });

      await t.test("prompts/get starts the server and passes the arguments", async () => {
        const result = await request(
          { method: "prompts/get", params: { name: "ops__everything__args-prompt", arguments: { city: "Paris", state: "TX" } } },
          GetPromptResultSchema,
        );
        assert.deepEqual(result.messages[0].content, { type: "text", text: "What's weather in Paris, TX?" });
      });

      await t.test("the server's own error comes back as a client connected directly sees it", async () => {
        const params = { name: "args-prompt" };
        const errorOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: Error & { code?: number }) => error);
        const direct = new Client({ name: "direct", version: "1.0.0" });
        await direct.connect(new StdioClientTransport({ ...npmServer("everything"), stderr: "ignore" }));
        let expected: (Error & { code?: number }) | undefined;
        try {
          expected = await errorOf(direct.request({ method: "prompts/get", params }, GetPromptResultSchema));
        } finally {
          await direct.close();
        }
        const error = await errorOf(request({ method: "prompts/get", params: { name: "ops__everything__args-prompt" } }, GetPromptResultSchema));
        assert.equal(error?.code, expected?.code);
        assert.equal(error?.message, expected?.message);
      });

      await t.test("completion/complete maps our prompt name back to the server's", async () => {
        const result = await request({
          method: "completion/complete",
          params: { ref: { type: "ref/prompt", name: "dev__everything__completable-prompt" }, argument: { name: "department", value: "En" } },
        }, CompleteResultSchema);
        assert.deepEqual(result.completion.values, ["Engineering"]);
      });

      await t.test("completion/complete for a template's variable goes to the template's server", async () => {
        const result = await request({
          method: "completion/complete",
          params: { ref: { type: "ref/resource", uri: "demo://resource/dynamic/text/{resourceId}" }, argument: { name: "resourceId", value: "3" } },
        }, CompleteResultSchema);
        assert.deepEqual(result.completion.values, ["3"]);
      });

      await t.test("a listed resource and a templated one are read back under their own URIs", async () => {
        const { resources } = await request({ method: "resources/list" }, ListResourcesResultSchema);
        assert.ok(resources.length > 0);
        assert.equal(new Set(resources.map((resource) => resource.uri)).size, resources.length, "each URI once");
        const read = await request({ method: "resources/read", params: { uri: resources[0].uri } }, ReadResourceResultSchema);
        assert.equal(read.contents[0].uri, resources[0].uri);
        const { resourceTemplates } = await request({ method: "resources/templates/list" }, ListResourceTemplatesResultSchema);
        assert.ok(resourceTemplates.some((template) => template.uriTemplate === "demo://resource/dynamic/text/{resourceId}"));
        const uri = "demo://resource/dynamic/text/7";
        const dynamic = await request({ method: "resources/read", params: { uri } }, ReadResourceResultSchema);
        assert.equal(dynamic.contents[0].uri, uri);
      });

      await t.test("a resource_link a tool returns is read back verbatim", async () => {
        await openToolbox(session, "ops");
        const result = await useTool(session, "ops", "everything", "get-resource-links", { count: 2 });
        const links = result.content.filter((item) => item.type === "resource_link");
        assert.equal(links.length, 2);
        for (const link of links) {
          const read = await request({ method: "resources/read", params: { uri: link.uri } }, ReadResourceResultSchema);
          assert.equal(read.contents[0].uri, link.uri);
        }
      });

      await t.test("a resource a server adds is listed after its list_changed, and the client hears of it", async () => {
        let changed = 0;
        session.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void changed++);
        const result = await useTool(session, "ops", "everything", "gzip-file-as-resource", {
          name: "hello.txt.gz",
          data: "data:text/plain;base64,aGVsbG8=",
        });
        const link = result.content.find((item) => item.type === "resource_link");
        assert.ok(link, JSON.stringify(result));
        await eventually("notifications/resources/list_changed", () => changed, (n) => n > 0);
        const { resources } = await request({ method: "resources/list" }, ListResourcesResultSchema);
        assert.ok(resources.some((resource) => resource.uri === link.uri), JSON.stringify(resources.map((resource) => resource.uri)));
        const read = await request({ method: "resources/read", params: { uri: link.uri } }, ReadResourceResultSchema);
        assert.equal(read.contents[0].uri, link.uri);
      });

      await t.test("a malformed request is invalid params; a method nobody serves is still not found", async () => {
        await assert.rejects(request({ method: "resources/read", params: {} }, ReadResourceResultSchema), { code: -32602 });
        await assert.rejects(request({ method: "nothing/here", params: {} }, ReadResourceResultSchema), { code: -32601 });
      });

      await t.test("an unknown URI is an error that names it", async () => {
        await assert.rejects(
          request({ method: "resources/read", params: { uri: "nowhere://x" } }, ReadResourceResultSchema),
          { code: -32002, message: "MCP error -32002: Resource 'nowhere://x' not found: no server lists it, has a template that matches it or returned it from a tool" },
        );
      });

      await t.test("resources/subscribe reaches the URI's server (a tool's link beats a template) and its updates come back", async () => {
        const updated: string[] = [];
        session.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
        // Both servers have the template; dev's comes first in the configuration, so dev owns its URIs,
        // except the one ops's tool returned above: that one goes to ops.
        const fromOps = "demo://resource/dynamic/text/2";
        const fromDev = "demo://resource/dynamic/text/1";
        await session.client.subscribeResource({ uri: fromOps });
        await session.client.subscribeResource({ uri: fromDev });
        // A subscribed server is not stopped for being idle: it would stop sending updates.
        const stops = () => session.stderr().split("[dev/everything] stopped after").length;
        const stopsBefore = stops();
        await sleep(IDLE_MS * 1.5);
        assert.equal(stops(), stopsBefore, session.stderr());
        // A server sends an update for each URI subscribed to it at once when its updates are switched on.
        await useTool(session, "ops", "everything", "toggle-subscriber-updates");
        await eventually("the update from ops", () => updated, (uris) => uris.includes(fromOps));
        assert.ok(!updated.includes(fromDev), "dev's URI was not subscribed on ops");
        await openToolbox(session, "dev");
        await useTool(session, "dev", "everything", "toggle-subscriber-updates");
        await eventually("the update from dev", () => updated, (uris) => uris.includes(fromDev));
        await session.client.unsubscribeResource({ uri: fromOps });
      });
    } finally {
      await session.close();
    }
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
});

test("resources/read of a URI one server lists and another's tool returned goes to the first in configuration order, either way round", async () => {
  const server = (label: string, resources: string) => fixtureServer("catalog-server.ts", { env: { FIXTURE_LABEL: label, FIXTURE_RESOURCES: resources } });
  const session = await startWorkbench({
    toolboxes: { dev: { description: "Dev", mcpServers: { a: server("a", "a://listed") } }, ops: { description: "Ops", mcpServers: { b: server("b", "b://listed") } } },
  });
  try {
    await openToolbox(session, "dev");
    await openToolbox(session, "ops");
    // The later server's tool returns the first's URI; the first server's tool returns the later's.
    await useTool(session, "ops", "b", "link", { uri: "a://listed" });
    await useTool(session, "dev", "a", "link", { uri: "b://listed" });
    const readBy = async (uri: string) => {
      const { contents } = await session.client.request({ method: "resources/read", params: { uri } }, ReadResourceResultSchema);
      return (contents[0] as { text: string }).text;
    };
    assert.equal(await readBy("a://listed"), "a read a://listed");
    assert.equal(await readBy("b://listed"), "a read b://listed");
  } finally {
    await session.close();
  }
});

test("a server listing 60,000 resources: at most 512 of them are offered and pinned, and the lock stays small", async (t) => {
  const many = fixtureServer("catalog-server.ts", { env: { FIXTURE_LABEL: "many", FIXTURE_RESOURCE_COUNT: "60000" } });
  const session = await startWorkbench({ toolboxes: { dev: { description: "Dev", mcpServers: { many } } } });
  try {
    const opens: number[] = [];
    for (let round = 0; round < 3; round++) {
      const started = performance.now();
      const opened = await openToolbox(session, "dev");
      opens.push(performance.now() - started);
      assert.equal(opened.isError, undefined);
    }
    const { resources } = await session.client.request({ method: "resources/list", params: {} }, ListResourcesResultSchema);
    const lock = `${session.dir}/workbench-lock.json`;
    const pinned = Object.keys(JSON.parse(readFileSync(lock, "utf8")).texts.dev.many).filter((key) => key.startsWith("resource:"));
    t.diagnostic(`open_toolbox ${opens.map((ms) => ms.toFixed(0)).join(", ")} ms; ${resources.length} resources listed; lock ${statSync(lock).size} bytes, ${pinned.length} resource pins`);
    assert.equal(resources.length, 512, "the first 512 the server lists");
    assert.deepEqual([resources[0].uri, resources[511].uri], ["note://0", "note://511"]);
    assert.equal(pinned.length, 512);
    assert.ok(statSync(lock).size < 200_000, `lock of ${statSync(lock).size} bytes`);
    assert.match(session.stderr(), /\[dev\/many\] resources\/list gave more than 512 resources: the later ones are not offered/);
  } finally {
    await session.close();
  }
});
