/** Shutdown: whichever way the workbench is told to stop, its downstream servers stop with it. */
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { fixtureServer } from "../helpers/runtime.ts";
import { isAlive, waitGone } from "../helpers/procs.ts";
import { type Session, startWorkbench, textOf } from "../helpers/workbench.ts";

const config = {
  toolboxes: {
    dev: { description: "two fixtures", mcpServers: { a: fixtureServer("fixture-server.ts"), b: fixtureServer("fixture-server.ts") } },
  },
};

/** Opens the toolbox and returns the pids of its two servers, as they report them. */
async function openAndGetPids(session: Session): Promise<number[]> {
  const opened = await session.call("open_toolbox", { toolbox_name: "dev" });
  assert.equal(opened.isError, undefined, textOf(opened));
  const pids = [];
  for (const server of ["a", "b"]) {
    const result = await session.call("use_tool", { tool: { toolbox: "dev", server, name: "pid" } });
    pids.push(Number(textOf(result)));
  }
  assert.ok(pids.every(isAlive));
  return pids;
}

test("shutdown: closing stdin ends every downstream server and the workbench", async () => {
  const session = await startWorkbench(config);
  const pids = await openAndGetPids(session);
  await session.close();
  assert.deepEqual(await waitGone([session.pid, ...pids], 10_000), []);
});

for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
  test(`shutdown: ${signal} ends every downstream server and the workbench`, async () => {
    const session = await startWorkbench(config);
    try {
      const pids = await openAndGetPids(session);
      process.kill(session.pid, signal);
      assert.deepEqual(await waitGone([session.pid, ...pids], 10_000), []);
    } finally {
      await session.close();
    }
  });
}
