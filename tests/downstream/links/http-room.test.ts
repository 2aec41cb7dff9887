/**
 * A remote server's room (issue 38), over a real HTTP fixture that reads slowly: requests whose
 * POST is not answered yet count against the same 16 MiB bound as a stdio server's unwritten
 * frames. Past it, tool calls wait their turn and hold the send gate; calls given up while they
 * wait leave the line, so the server never sees them.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import { validateConfig } from "../../../src/config/index.ts";
import { ServerSession } from "../../../src/downstream/server-session.ts";
import { FlowGate } from "../../../src/transport/flow-gate.ts";
import { startHttpFixture } from "../../helpers/http-fixture.ts";
import { eventually } from "../../helpers/toolbox.ts";

const CALLS = 10;
const TEXT_BYTES = 4_000_000;

const textOf = (result: { content?: unknown }) => ((result.content as { text?: string }[] | undefined)?.[0]?.text ?? "");

test("http room: past 16 MiB of POSTs unanswered, calls to a remote server wait and hold the send gate; those given up while waiting never reach it", async () => {
  const remote = await startHttpFixture({ FIXTURE_SLOW_READ_MS: "10", FIXTURE_LABEL: "slow" });
  const sendGate = new FlowGate();
  const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {}, sendGate };
  const config = validateConfig({ toolboxes: { dev: { mcpServers: { slow: { url: remote.url() } } } } });
  const session = ServerSession.open({ toolbox: "dev", server: "slow", config: config.toolboxes.dev.mcpServers.slow }, host);
  try {
    await session.connect();
    const requestsBefore = Number(textOf(await session.callTool("requests", {})));
    const text = "x".repeat(TEXT_BYTES);
    const controllers = Array.from({ length: CALLS }, () => new AbortController());
    const outcomes = controllers.map((controller) =>
      session.callTool("echo", { text }, { signal: controller.signal }).then((result) => textOf(result).length > TEXT_BYTES ? "answered" : "other", () => "given up")
    );
    // Awaited, not given a guessed 200 ms: the calls past the room hold the gate once they wait.
    await eventually("the send gate held", () => sendGate.held, (held) => held);
    // 16 MiB of 4 MB calls: five go, the others wait. The last four give up while waiting.
    for (const controller of controllers.slice(CALLS - 4)) controller.abort();
    const started = Date.now();
    const results = await Promise.all(outcomes);
    assert.deepEqual(results.slice(CALLS - 4), ["given up", "given up", "given up", "given up"]);
    assert.deepEqual(results.slice(0, CALLS - 4), Array(CALLS - 4).fill("answered"), "the calls in line got their turns");
    const echo = textOf(await session.callTool("echo", { text: "after" }));
    assert.equal(echo, "slow: after");
    const requests = Number(textOf(await session.callTool("requests", {}))) - requestsBefore;
    // The six calls that went, the echo and this count: not the four given up (nor their cancellation).
    assert.equal(requests, CALLS - 4 + 2, `the server saw ${requests} requests`);
    assert.equal(sendGate.held, false, "the gate is let go once the room drains");
    // A hang detector only (the calls drain at the server's slow reading, seconds).
    assert.ok(Date.now() - started < 30_000);
  } finally {
    await session.close();
    await remote.stop();
  }
});
