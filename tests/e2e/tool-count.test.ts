/**
 * The tool count in the instructions is what this client will see (issue 27, point 5):
 * server-everything lists some tools only to a client that declares elicitation or sampling, so
 * two clients on one cache see different lists. Each is told its own count once its kind of client
 * has been seen, and "about" the last count before that.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "../helpers/sdk.ts";
import { npmServer } from "../helpers/runtime.ts";
import { removeTempDirs, startWorkbench, tempDir } from "../helpers/workbench.ts";
import { opened, openToolbox } from "../helpers/toolbox.ts";

after(removeTempDirs);

const config = { toolboxes: { dev: { mcpServers: { everything: npmServer("everything") } } } };

const rich = () => new Client({ name: "rich", version: "1.0.0" }, { capabilities: { elicitation: {}, sampling: {} } });
const plain = () => new Client({ name: "plain", version: "1.0.0" });

/** What the instructions say of `dev`, and how many tools opening it gives this client. */
async function session(cache: string, client: Client): Promise<{ said: string; tools: number }> {
  const workbench = await startWorkbench(config, { WORKBENCH_CACHE_DIR: cache }, client);
  try {
    const said = (client.getInstructions() ?? "").split("\n").find((line) => line.startsWith("- dev")) ?? "";
    return { said, tools: opened(await openToolbox(workbench, "dev")).tools.length };
  } finally {
    await workbench.close();
  }
}

test("tool count: two clients with different capabilities, one after the other on one cache, each told what it will see", async () => {
  const cache = `${tempDir()}/cache`;
  const first = await session(cache, rich());
  assert.equal(first.said, "- dev (1 server)", "nothing cached yet");
  const second = await session(cache, plain());
  assert.ok(second.tools < first.tools, `server-everything lists fewer tools to a plain client: ${second.tools} vs ${first.tools}`);
  assert.match(second.said, new RegExp(`^- dev \\(1 server, about ${first.tools} tools, ~`), "only another client's list is known");
  const third = await session(cache, rich());
  assert.match(third.said, new RegExp(`^- dev \\(1 server, ${third.tools} tools, ~`));
  assert.equal(third.tools, first.tools);
  const fourth = await session(cache, plain());
  assert.match(fourth.said, new RegExp(`^- dev \\(1 server, ${fourth.tools} tools, ~`));
  assert.equal(fourth.tools, second.tools);
});
