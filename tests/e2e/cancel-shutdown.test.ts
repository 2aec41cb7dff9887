/**
 * Closing the session after a cancelled call (issue 19): the server is still working and writing
 * progress. Its stdout is read (and discarded) until it exits, so its last writes do not fail and
 * no EPIPE stack trace reaches the workbench's stderr.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { npmServer } from "../helpers/runtime.ts";
import { startRaw } from "../helpers/raw-session.ts";

test("e2e cancel then shutdown: a cancelled trigger-long-running-operation leaves no EPIPE trace on stderr", async () => {
  const session = await startRaw({ toolboxes: { ref: { mcpServers: { everything: npmServer("everything") } } } });
  try {
    const open = { name: "open_toolbox", arguments: { toolbox_name: "ref" } };
    await session.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: open }) + "\n");
    await session.answer(2, 60_000);
    const tool = { toolbox: "ref", server: "everything", name: "trigger-long-running-operation" };
    const params = { name: "use_tool", arguments: { tool, arguments: { duration: 3, steps: 30 } }, _meta: { progressToken: "long" } };
    await session.write(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params }) + "\n");
    await session.reply((reply) => reply.method === "notifications/progress", 20_000);
    const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3, reason: "test" } };
    await session.write(JSON.stringify(cancel) + "\n");
    const exit = await session.close(15_000);
    assert.equal(exit.code, 0, session.stderr());
    assert.doesNotMatch(session.stderr(), /EPIPE|\n\s+at /, session.stderr());
  } finally {
    rmSync(session.dir, { recursive: true, force: true });
  }
});
