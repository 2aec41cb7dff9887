/** The offer's lookup of a tool (use_tool's resolve): from the identifier to the tool, or the failure that says what is wrong. */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import { validateConfig } from "../../src/config/index.ts";
import { ToolboxRegistry } from "../../src/toolboxes/registry.ts";
import { type Found, SessionOffer } from "../../src/toolboxes/session-offer.ts";
import { fixtureServer } from "../helpers/runtime.ts";

const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };
const config = validateConfig({
  toolboxes: { dev: { mcpServers: { a: fixtureServer("fixture-server.ts", { env: { FIXTURE_LABEL: "a" } }) } } },
});
const registry = new ToolboxRegistry(config, host, {});
const offer = new SessionOffer(registry, () => config);
after(() => registry.closeAll());

const errorOf = (found: Found) => found.ok ? "" : found.error;
const signal = new AbortController().signal;

test("offer.find: a toolbox not configured, and one not open, fail before any server starts", async () => {
  assert.equal(
    errorOf(await offer.find({ toolbox: "deb", server: "a", name: "echo" }, () => signal, false)),
    "Error executing tool: Toolbox 'deb' not found in configuration. Did you mean 'dev'?",
  );
  assert.match(errorOf(await offer.find({ toolbox: "dev", server: "a", name: "echo" }, () => signal, false)), /Toolbox 'dev' is not open; call open_toolbox/);
  assert.equal(registry.get("dev"), undefined, "nothing was opened");
});

test("offer.find: a request that stands alone opens the toolbox; the tool found is the server's own, and the target calls it", async () => {
  const found = await offer.find({ toolbox: "dev", server: "a", name: "echo" }, () => signal, true);
  assert.ok(found.ok, errorOf(found));
  assert.equal(found.tool.name, "echo");
  assert.equal(found.target.config, config.toolboxes.dev.mcpServers.a);
  assert.deepEqual(await found.target.call("echo", { text: "hi" }, {}), { content: [{ type: "text", text: "a: hi" }] });
});

test("offer.find: a server or tool that is not there is named with the closest names", async () => {
  await registry.open("dev");
  assert.equal(
    errorOf(await offer.find({ toolbox: "dev", server: "b", name: "echo" }, () => signal, false)),
    "Error executing tool: Server 'b' not found in toolbox 'dev'. Did you mean 'a'?",
  );
  assert.equal(
    errorOf(await offer.find({ toolbox: "dev", server: "a", name: "ecko" }, () => signal, false)),
    "Error executing tool: Tool 'ecko' not found in server 'a' (toolbox 'dev'). Did you mean 'echo'?",
  );
});

test("offer.find: a toolbox the session opened elsewhere (its name kept in the store) is opened here for the call", async () => {
  const kept = new Set(["dev"]);
  const elsewhere = new ToolboxRegistry(config, host, { kept: { add: (name) => Promise.resolve(void kept.add(name)), has: (name) => Promise.resolve(kept.has(name)) } });
  try {
    const found = await new SessionOffer(elsewhere, () => config).find({ toolbox: "dev", server: "a", name: "echo" }, () => signal, false);
    assert.ok(found.ok, errorOf(found));
    kept.clear();
    const fresh = new ToolboxRegistry(config, host, { kept: { add: () => Promise.resolve(), has: (name) => Promise.resolve(kept.has(name)) } });
    const refused = await new SessionOffer(fresh, () => config).find({ toolbox: "dev", server: "a", name: "echo" }, () => signal, false);
    assert.match(errorOf(refused), /is not open/);
    await fresh.closeAll();
  } finally {
    await elsewhere.closeAll();
  }
});

test("registry: a toolbox opened is kept by name in the session's store", async () => {
  const added: string[] = [];
  const own = new ToolboxRegistry(config, host, { kept: { add: (name) => Promise.resolve(void added.push(name)), has: () => Promise.resolve(false) } });
  try {
    await own.open("dev");
    await own.open("dev");
    assert.deepEqual(added, ["dev"]);
  } finally {
    await own.closeAll();
  }
});
