/**
 * The SDK's Server and each Client build an ajv instance with its formats when constructed, and a
 * Client compiles every tool's outputSchema on listing: memory for validators the workbench never
 * asks for. Ours is built on first use, so serving and opening a server build none.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Ajv } from "ajv";
import { platform } from "#platform";
import { validateConfig } from "../../src/config/index.ts";
import { ServerSession } from "../../src/downstream/server-session.ts";
import { ToolboxRegistry } from "../../src/toolboxes/registry.ts";
import { serveWorkbench } from "../../src/upstream/session.ts";
import { StreamTransport } from "../../src/transport/stream-transport.ts";
import { lazySchemaValidator } from "../../src/protocol/schema-validator.ts";
import { fixtureServer } from "../helpers/runtime.ts";

const config = validateConfig({ toolboxes: { dev: { mcpServers: { fx: fixtureServer("fixture-server.ts") } } } });
const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };

/** Counts the ajv instances built while `fn` runs (every one adds its meta-schema). */
async function ajvBuilt(fn: () => Promise<void>): Promise<number> {
  let built = 0;
  const original = Ajv.prototype.addMetaSchema;
  Ajv.prototype.addMetaSchema = function (this: Ajv, ...args: Parameters<Ajv["addMetaSchema"]>) {
    built++;
    return original.apply(this, args);
  };
  try {
    await fn();
  } finally {
    Ajv.prototype.addMetaSchema = original;
  }
  return built;
}

test("lazy validator: the workbench's Server builds no ajv", async () => {
  const built = await ajvBuilt(async () => {
    const transport = new StreamTransport(new ReadableStream(), new WritableStream());
    const server = await serveWorkbench(transport, {
      config,
      configPath: "workbench-config.json",
      registry: new ToolboxRegistry(config, host),
      onClose: () => {},
      onError: () => {},
    });
    await server.close();
  });
  assert.equal(built, 0);
});

test("lazy validator: connecting a server whose tools have an outputSchema builds no ajv", async () => {
  const built = await ajvBuilt(async () => {
    const connection = ServerSession.open({ toolbox: "dev", server: "fx", config: config.toolboxes.dev.mcpServers.fx }, host);
    try {
      await connection.connect();
      assert.ok(connection.tools.some((tool) => tool.outputSchema !== undefined), "the fixture has an outputSchema");
    } finally {
      await connection.close();
    }
  });
  assert.equal(built, 0);
});

test("lazy validator: asked for a validator, it builds ajv once and validates", async () => {
  const built = await ajvBuilt(() => {
    const check = lazySchemaValidator.getValidator<string>({ type: "string" });
    assert.equal(check("text").valid, true);
    assert.equal(check(1).valid, false);
    lazySchemaValidator.getValidator({ type: "number" });
    return Promise.resolve();
  });
  assert.equal(built <= 1, true, `built ${built}`);
});
