/**
 * A slot's offer of what the listing cache kept (ServerSlot.offerOf) is made once while the lists
 * and the lock are the same objects: search asks at every query, and a cached listing's texts
 * (prompts, resources, skills) would be hashed again each time. A new lock, or new lists, make it again.
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
