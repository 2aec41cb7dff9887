/**
 * The HTTP link's cancellation of a 2026-07-28 request (the end of its POST), over the SDK v2
 * fixture served over HTTP: a POST cut on purpose is no lost connection, also when its answer had
 * become an event stream (the server sent progress first), which the SDK reports only as text.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import { validateConfig } from "../../../src/config/index.ts";
import { ServerSession } from "../../../src/downstream/server-session.ts";
import { startV2Http } from "../../helpers/http-fixture.ts";

const textOf = (result: { content?: unknown }) => ((result.content as { text?: string }[] | undefined)?.[0]?.text ?? "");

test("http link: a 2026-07-28 call cancelled once its answer is an event stream leaves the connection up", async () => {
  // Served by Bun whatever runs the test: under Deno.serve a handler never hears of a cancelled POST.
  const remote = await startV2Http(true);
  const logged: string[] = [];
  const writeStderr = (text: string) => void logged.push(text);
  const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr };
  const config = validateConfig({ toolboxes: { dev: { mcpServers: { v2: { type: "http", url: remote.url("/") } } } } });
  const session = ServerSession.open({ toolbox: "dev", server: "v2", config: config.toolboxes.dev.mcpServers.v2 }, host);
  try {
    await session.connect();
    assert.match(textOf(await session.callTool("echo", { text: "hi" })), /^2026-07-28: hi$/);
    const cancel = new AbortController();
    let begun!: () => void;
    const streaming = new Promise<void>((resolve) => (begun = resolve));
    // The wait's progress makes its answer an event stream; it is cut once that stream has begun.
    const waiting = session.callTool("wait", { ms: 30_000, announce: true }, { signal: cancel.signal, onProgress: () => begun() });
    await streaming;
    cancel.abort();
    await assert.rejects(waiting);
    assert.match(textOf(await session.callTool("echo", { text: "still" })), /^2026-07-28: still$/);
    assert.equal(session.lostReason, undefined, logged.join(""));
    assert.doesNotMatch(logged.join(""), /SSE stream disconnected|cancelled/);
    assert.equal(JSON.parse(textOf(await session.callTool("stats", {}))).cancelled, 1, "the server saw its POST end");
  } finally {
    await session.close();
    await remote.stop();
  }
});
