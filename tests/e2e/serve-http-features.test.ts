/**
 * `serve --http`, 2025-11-25: what passes over stdio passes per session over HTTP too, with two
 * sessions at once: each gets log messages at its own level, a cancelled call is cancelled on the
 * server (and the other session's call goes on), and prompts, resources and completions route to
 * their servers.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { Client, LoggingMessageNotificationSchema } from "../helpers/sdk.ts";
import { connectLegacy, startHttpWorkbench } from "../helpers/http-workbench.ts";
import { firstProgress, fx } from "../helpers/toolbox.ts";
import { fixtureServer } from "../helpers/runtime.ts";
import { removeTempDirs } from "../helpers/workbench.ts";

after(removeTempDirs);

const CONFIG = {
  toolboxes: {
    dev: {
      description: "Dev tools",
      mcpServers: {
        a: fx("a", {}, { FIXTURE_CLIENT_FEATURES: "1" }),
        c: fixtureServer("catalog-server.ts", { env: { FIXTURE_LABEL: "c", FIXTURE_RESOURCES: "c://doc", FIXTURE_TEMPLATES: "tmpl://{id}" } }),
      },
    },
  },
};
const use = (name: string, args: Record<string, unknown>) => ({ name: "use_tool", arguments: { tool: { toolbox: "dev", server: "a", name }, arguments: args } });
const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;

test("serve --http: two sessions, each with its own log level; cancellation; prompts, resources, completions", async () => {
  const wb = await startHttpWorkbench(CONFIG);
  try {
    const connect = async (name: string) => {
      const logs: string[] = [];
      const client = new Client({ name, version: "1.0.0" });
      client.setNotificationHandler(LoggingMessageNotificationSchema, (note) => void logs.push(String(note.params.data)));
      await connectLegacy(wb.url, client);
      await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } });
      return { client, logs };
    };
    const [verbose, quiet] = await Promise.all([connect("verbose"), connect("quiet")]);
    await verbose.client.setLoggingLevel("debug");
    await quiet.client.setLoggingLevel("error");
    await Promise.all([verbose.client.callTool(use("logs", { logger: "v" })), quiet.client.callTool(use("logs", { logger: "q" }))]);
    // The server is shared, so each session may also hear the other's call, at its own level; a
    // line whose call is unknown comes on the GET stream, maybe after the call's answer.
    const heard = () => quiet.logs.includes("a emergency") && verbose.logs.includes("a debug") && verbose.logs.includes("a emergency");
    const until = Date.now() + 5_000;
    while (!heard() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 25));
    assert.ok(quiet.logs.includes("a emergency"), quiet.logs.join(", "));
    assert.ok(quiet.logs.every((line) => /^a (error|critical|alert|emergency)$/.test(line)), quiet.logs.join(", "));
    assert.ok(verbose.logs.includes("a debug") && verbose.logs.includes("a emergency"), verbose.logs.join(", "));

    // Cancel one session's call; the other's goes on to its answer.
    const controller = new AbortController();
    const sleeping = firstProgress("verbose's sleep");
    const cancelled = verbose.client.callTool(use("sleep", { ms: 10_000 }), undefined, {
      signal: controller.signal,
      onprogress: sleeping.onprogress,
    });
    const other = quiet.client.callTool(use("sleep", { ms: 300 }), undefined, { timeout: 20_000 });
    // Cancelled once the server has the call: one cancelled before it got there never reaches it.
    await sleeping.begun();
    controller.abort();
    await assert.rejects(cancelled);
    assert.equal((await other).isError, undefined);
    let count = "0";
    const deadline = Date.now() + 10_000;
    while (count === "0" && Date.now() < deadline) {
      count = textOf(await quiet.client.callTool(use("cancellations", {})));
      if (count === "0") await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(count, "1");

    const { prompts } = await quiet.client.listPrompts();
    assert.deepEqual(prompts.map((prompt) => prompt.name), ["dev__c__greet"]);
    const greeting = await quiet.client.getPrompt({ name: "dev__c__greet", arguments: { name: "Ann" } });
    assert.equal((greeting.messages[0].content as { text: string }).text, "c: hello Ann");
    const read = await verbose.client.readResource({ uri: "c://doc" });
    assert.equal((read.contents[0] as { text: string }).text, "c read c://doc");
    const completed = await verbose.client.complete({ ref: { type: "ref/prompt", name: "dev__c__greet" }, argument: { name: "name", value: "v" } });
    assert.deepEqual(completed.completion.values, ["c:v"]);
    await Promise.all([verbose.client.close(), quiet.client.close()]);
  } finally {
    assert.equal(await wb.stop(), 0, wb.stderr());
  }
});
