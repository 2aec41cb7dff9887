/**
 * A connection's requests wait connectTimeoutMs, not the SDK's own 60 s default: with a larger
 * connectTimeoutMs a slow tools/list would otherwise fail at 60 s. Waiting a minute to see it is
 * no test, so this one looks at the timeout each request is sent with, over a real fixture server.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import { validateConfig } from "../../src/config/index.ts";
import { ServerSession } from "../../src/downstream/server-session.ts";
import { Client } from "../helpers/sdk.ts";
import { fixtureServer } from "../helpers/runtime.ts";

const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };
/** Above the SDK's default of 60 s, so that a request sent without it would show 60 s or none. */
const CONNECT_TIMEOUT_MS = 90_000;

type Request = (this: Client, request: { method: string }, schema: unknown, options?: { timeout?: number }) => unknown;

/** Runs `fn` while noting the method and timeout of every request an SDK Client sends. */
async function requestsDuring(fn: () => Promise<void>): Promise<{ method: string; timeout?: number }[]> {
  const seen: { method: string; timeout?: number }[] = [];
  const proto = Client.prototype as unknown as { request: Request };
  const own = Object.getOwnPropertyDescriptor(proto, "request");
  const original = proto.request;
  proto.request = function (request, schema, options) {
    seen.push({ method: request.method, timeout: options?.timeout });
    return original.call(this, request, schema, options);
  };
  try {
    await fn();
  } finally {
    if (own) Object.defineProperty(proto, "request", own);
    else delete (proto as { request?: Request }).request;
  }
  return seen;
}

test("connection: initialize, tools/list and the list after tools/list_changed wait connectTimeoutMs, not the SDK's 60 s", async () => {
  const config = validateConfig({
    toolboxes: {
      dev: {
        mcpServers: {
          fx: fixtureServer("fixture-server.ts", { connectTimeoutMs: CONNECT_TIMEOUT_MS, env: { FIXTURE_DYNAMIC: "1" } }),
        },
      },
    },
  });
  const seen = await requestsDuring(async () => {
    const connection = ServerSession.open({ toolbox: "dev", server: "fx", config: config.toolboxes.dev.mcpServers.fx }, host);
    try {
      await connection.connect();
      // The fixture says its tools changed before it answers: the connection lists them again.
      await connection.callTool("add_tool", { name: "late" });
      await connection.toolsSettled();
      assert.ok(connection.tools.some((tool) => tool.name === "late"), "the list after the change came");
    } finally {
      await connection.close();
    }
  });
  assert.deepEqual(seen, [
    { method: "initialize", timeout: CONNECT_TIMEOUT_MS },
    { method: "tools/list", timeout: CONNECT_TIMEOUT_MS },
    { method: "tools/list", timeout: CONNECT_TIMEOUT_MS },
  ]);
});
