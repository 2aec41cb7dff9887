/**
 * The state seam: its in-memory implementation runs the contract any other implementation runs,
 * and a session keeps all it keeps there, under its key: its open toolboxes, its cut results, its
 * approvals for the session; all gone when the session ends.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import { validateConfig } from "../../src/config/index.ts";
import { ServerPool } from "../../src/toolboxes/pool.ts";
import { openSession } from "../../src/upstream/session.ts";
import { SessionStates } from "../../src/upstream/session-state.ts";
import { MemoryStore } from "../../src/store/memory-store.ts";
import { approvalKey } from "../../src/trust/approvals.ts";
import { FOR_THIS_SESSION } from "../../src/trust/confirm.ts";
import { StreamTransport } from "../../src/transport/stream-transport.ts";
import { type CallToolResult, Client, ElicitRequestSchema } from "../helpers/sdk.ts";
import { fx } from "../helpers/toolbox.ts";
import { sessionStateContract } from "../helpers/session-state-contract.ts";

sessionStateContract("SessionStates over MemoryStore", () => Promise.resolve(new MemoryStore()));
sessionStateContract("SessionStates over a MemoryStore shared by replicas", () => Promise.resolve(new MemoryStore({ shared: true })));

test("session state: a session keeps its toolboxes, cut results and approvals under its key; a hub lets go of them, leaving them to other replicas", async () => {
  const config = validateConfig({ toolboxes: { dev: { mcpServers: { fx: fx("a", { confirm: ["echo"], maxResultTokens: 100 }) } } } });
  const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };
  const pool = new ServerPool(config, host);
  const states = new SessionStates(new MemoryStore(), () => 60_000);
  const up = new TransformStream<Uint8Array, Uint8Array>();
  const down = new TransformStream<Uint8Array, Uint8Array>();
  const session = await openSession(new StreamTransport(up.readable, down.writable), {
    config, configPath: "state.json", pool, states, stateKey: "hub-key", onClose: () => {}, onError: () => {},
  });
  const client = new Client({ name: "c", version: "1" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { [FOR_THIS_SESSION]: true } }));
  try {
    await client.connect(new StreamTransport(down.readable, up.writable));
    const state = states.of("hub-key");
    await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } });
    assert.equal(await state.toolboxes.has("dev"), true);
    const echo = { toolbox: "dev", server: "fx", name: "echo" };
    const result = await client.callTool({ name: "use_tool", arguments: { tool: echo, arguments: { text: "x".repeat(2_000) } } }) as CallToolResult;
    assert.equal(result.isError, undefined);
    assert.equal(await state.approvals.remembered(approvalKey(echo)), true, "approved for the session, in the store");
    assert.ok(state.results.get("r1"), "the cut result is kept in the store");
    assert.equal(states.size, 1);
  } finally {
    await client.close();
    await session.close();
    await pool.closeAll();
  }
  assert.equal(states.size, 0, "the session's state went with it");
  assert.equal(await states.of("hub-key").approvals.remembered(approvalKey({ toolbox: "dev", server: "fx", name: "echo" })), true, "a hub's state stays for other replicas");
});
