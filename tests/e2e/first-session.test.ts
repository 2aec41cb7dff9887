/**
 * A first session is not empty (issue 27, point 4): `check`, `tools` and `call` fill the catalog
 * cache that serving lists prompts and resources from, and a read, a prompt or a completion that
 * names what no known list has looks in the servers not known yet before saying "not found".
 * server-everything serves `demo://resource/dynamic/text/{resourceId}` and `simple-prompt`.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { CompleteResultSchema, GetPromptResultSchema, ListPromptsResultSchema, ReadResourceResultSchema } from "../../src/protocol/sdk.ts";
import { npmServer } from "../helpers/runtime.ts";
import { removeTempDirs, type Session, startWorkbench, tempDir, writeConfig } from "../helpers/workbench.ts";
import { runCli } from "../helpers/cli.ts";

after(removeTempDirs);

const config = { toolboxes: { dev: { mcpServers: { everything: npmServer("everything") } } } };
const URI = "demo://resource/dynamic/text/5";

/** A session on a cache of its own, given or fresh. */
async function withSession(run: (session: Session) => Promise<void>, cache = `${tempDir()}/cache`): Promise<void> {
  const session = await startWorkbench(config, { WORKBENCH_CACHE_DIR: cache });
  try {
    await run(session);
  } finally {
    await session.close();
  }
}

test("first session: a read, a prompt and a completion reach a server no list knows yet; what no server has is still not found", async (t) => {
  await t.test("resources/read of a templated URI", () =>
    withSession(async (session) => {
      const read = await session.client.request({ method: "resources/read", params: { uri: URI } }, ReadResourceResultSchema);
      assert.equal(read.contents[0].uri, URI);
      // Every server is known now: a URI none has is not found, as before.
      await assert.rejects(
        session.client.request({ method: "resources/read", params: { uri: "nowhere://x" } }, ReadResourceResultSchema),
        (error: Error & { code?: number }) => error.code === -32002,
      );
    }));

  await t.test("prompts/get by our name", () =>
    withSession(async (session) => {
      const prompt = await session.client.request({ method: "prompts/get", params: { name: "dev__everything__simple-prompt" } }, GetPromptResultSchema);
      assert.ok(prompt.messages.length > 0, JSON.stringify(prompt));
      await assert.rejects(
        session.client.request({ method: "prompts/get", params: { name: "dev__everything__nothing" } }, GetPromptResultSchema),
        /Prompt 'dev__everything__nothing' not found in any toolbox/,
      );
    }));

  await t.test("completion/complete of a template's variable", () =>
    withSession(async (session) => {
      const result = await session.client.request({
        method: "completion/complete",
        params: { ref: { type: "ref/resource", uri: "demo://resource/dynamic/text/{resourceId}" }, argument: { name: "resourceId", value: "3" } },
      }, CompleteResultSchema);
      assert.deepEqual(result.completion.values, ["3"]);
    }));
});

test("first session: check, tools and call fill the cache, so the next session lists prompts before anything starts", async (t) => {
  const commands: [string, string[]][] = [
    ["check", ["check"]],
    ["tools", ["tools", "dev"]],
    ["call", ["call", "dev", "everything", "echo", '{"message":"hi"}']],
  ];
  for (const [name, args] of commands) {
    await t.test(name, async () => {
      const dir = tempDir();
      const cache = `${dir}/cache`;
      const result = await runCli([...args, "--config", writeConfig(dir, config)], { env: { WORKBENCH_CACHE_DIR: cache } });
      assert.equal(result.code, 0, result.stderr);
      await withSession(async (session) => {
        const { prompts } = await session.client.request({ method: "prompts/list" }, ListPromptsResultSchema);
        assert.ok(prompts.some((prompt) => prompt.name === "dev__everything__simple-prompt"), JSON.stringify(prompts));
        // Listed from the cache: the server has not started for it.
        assert.doesNotMatch(session.stderr(), /\[dev\/everything\]/);
      }, cache);
    });
  }
});
