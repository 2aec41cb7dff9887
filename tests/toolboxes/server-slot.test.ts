/**
 * A slot's offer of what the listing cache kept (ServerSlot.offerOf) is made once while the lists
 * and the lock are the same objects: search asks at every query, and a cached listing's texts
 * (prompts, resources, skills) would be hashed again each time. A new lock, or new lists, make it again.
 * A tool new on a pinned server is withheld, and trust does not pin it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { platform } from "#platform";
import { LOCK_FILE, PinStore } from "../../src/toolboxes/pin-store.ts";
import { ServerSlot } from "../../src/toolboxes/server-slot.ts";
import type { SharedServer } from "../../src/toolboxes/shared-server.ts";
import { validateConfig } from "../../src/config/index.ts";

test("server slot: the offer of cached lists is kept while lists and lock are the same, made again when either changes", async () => {
  const dir = mkdtempSync(`${tmpdir()}/workbench-slot-`);
  try {
    const pins = new PinStore(`${dir}/${LOCK_FILE}`, platform);
    await pins.refresh();
    const config = validateConfig({ toolboxes: { dev: { mcpServers: { s: { command: "x" } } } } }).toolboxes.dev.mcpServers.s;
    const slot = new ServerSlot("s", config, {} as SharedServer, { toolbox: "dev", pins, same: [] });
    const listing = { prompts: [], resources: [{ uri: "file:///a", name: "a" }], resourceTemplates: [] };
    const listed = { tools: [], listing };
    const first = slot.offerOf(listed);
    assert.equal(slot.offerOf({ tools: listed.tools, listing }), first, "same lists, same lock: the same offer");
    assert.notEqual(slot.offerOf({ tools: [], listing }), first, "other lists: made again");
    await pins.pinServer("dev", "s", [], {});
    assert.notEqual(slot.offerOf(listed), first, "another lock: made again");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("server slot: a call skips trust only while it has nothing to do: the lock fresh, the server pinned (issue 42)", async () => {
  const dir = mkdtempSync(`${tmpdir()}/workbench-slot-`);
  try {
    const pins = new PinStore(`${dir}/${LOCK_FILE}`, platform);
    const config = validateConfig({ toolboxes: { dev: { mcpServers: { s: { command: "x" } } } } }).toolboxes.dev.mcpServers.s;
    const shared = { serverSession: { instructions: undefined }, tools: [{ name: "echo", inputSchema: { type: "object" } }], listing: undefined };
    const slot = new ServerSlot("s", config, shared as unknown as SharedServer, { toolbox: "dev", pins, same: [] });
    assert.equal(slot.trusted(60_000), false, "the lock never read");
    await pins.refresh();
    assert.equal(slot.trusted(60_000), false, "read, but the server not pinned yet");
    await slot.trust(60_000);
    assert.equal(slot.trusted(60_000), true, "pinned, and the lock read a moment ago");
    const other = new ServerSlot("s", config, shared as unknown as SharedServer, { toolbox: "ops", pins, same: [] });
    assert.equal(other.trusted(60_000), false, "the same server in a toolbox not pinned yet");
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(slot.trusted(10), false, "the lock read longer ago than asked: read again");
    assert.equal(slot.trusted(0), false, "0: always read again");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("server slot: a tool new on a pinned server is withheld and not pinned by the next trust; the tools pinned stay offered", async () => {
  const dir = mkdtempSync(`${tmpdir()}/workbench-slot-`);
  try {
    const pins = new PinStore(`${dir}/${LOCK_FILE}`, platform);
    const config = validateConfig({ toolboxes: { dev: { mcpServers: { s: { command: "x" } } } } }).toolboxes.dev.mcpServers.s;
    const echo = { name: "echo", description: "Echoes.", inputSchema: { type: "object" as const } };
    const shared = { serverSession: { instructions: undefined }, tools: [echo], listing: undefined };
    const slot = new ServerSlot("s", config, shared as unknown as SharedServer, { toolbox: "dev", pins, same: [] });
    await slot.trust();
    assert.deepEqual(Object.keys(pins.snapshot.pinsOf("dev", "s") ?? {}), ["echo"], "first sight: pinned");
    // The server lists one more tool (tools/list_changed, or its next start).
    shared.tools = [echo, { name: "fresh", description: "Appeared later.", inputSchema: { type: "object" } }];
    await slot.trust();
    assert.deepEqual(slot.tools.map((tool) => tool.name), ["echo"]);
    assert.deepEqual(slot.withheld, [{ name: "fresh", changed: [], reason: "new tool" }]);
    assert.deepEqual(Object.keys(pins.snapshot.pinsOf("dev", "s") ?? {}), ["echo"], "the new tool is not pinned");
    const other = new ServerSlot("s", config, shared as unknown as SharedServer, { toolbox: "dev", pins, same: [] });
    await other.trust();
    assert.deepEqual(other.withheld.map((tool) => tool.name), ["fresh"], "another session's slot withholds it too");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
