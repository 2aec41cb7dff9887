/**
 * A toolbox with a server started per client (`${WORKBENCH_CLIENT}`) gets its tool count in the
 * instructions once that client's own process has listed it (issue 41): the listing is kept under
 * the definition as the client's name makes it, so it is never another client's count.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { fx, opened, openToolbox } from "../helpers/toolbox.ts";
import { removeTempDirs, tempDir, withWorkbench } from "../helpers/workbench.ts";

after(removeTempDirs);

test("per-client server: after one session listed it, the next start's instructions give the toolbox its tool count", async () => {
  const cache = tempDir();
  const config = { toolboxes: { mine: { description: "Mine", mcpServers: { own: fx("O", {}, { OWNER: "${WORKBENCH_CLIENT}" }) } } } };
  const env = { WORKBENCH_CACHE_DIR: cache };
  let tools = 0;
  await withWorkbench(config, async (session) => {
    assert.match(session.client.getInstructions() ?? "", /^- mine: Mine \(1 server\)$/m, "nothing listed yet");
    tools = opened(await openToolbox(session, "mine")).tools.length;
  }, env);
  assert.ok(tools > 0);
  await withWorkbench(config, async (session) => {
    assert.match(session.client.getInstructions() ?? "", new RegExp(`^- mine: Mine \\(1 server, ${tools} tools, ~[0-9.k]+ tokens\\)$`, "m"));
  }, env);
});
