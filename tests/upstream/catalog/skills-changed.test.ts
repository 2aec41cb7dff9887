/**
 * A server's skills changing while a session runs (tests/fixtures/skills-server.ts with
 * FIXTURE_SKILLS_WATCH, which says so with notifications/resources/list_changed): the extension
 * defines no notification of its own, so the client is told notifications/resources/list_changed
 * when the skills it is offered changed, even when no resource's listing did (a file's bytes, so
 * its digest); and only through the offer: a change the pins withhold, which changes nothing the
 * client may see, is not told.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import * as z from "zod";
import { platform } from "#platform";
import { validateConfig } from "../../../src/config/index.ts";
import { ListingCache } from "../../../src/cache/listing-cache.ts";
import { ServerPool } from "../../../src/toolboxes/pool.ts";
import { lockPathFor, PinStore } from "../../../src/toolboxes/pin-store.ts";
import { openSession } from "../../../src/upstream/session.ts";
import { StreamTransport } from "../../../src/transport/stream-transport.ts";
import { type CallToolResult, Client, ResourceListChangedNotificationSchema } from "../../helpers/sdk.ts";
import { eventually } from "../../helpers/toolbox.ts";
import { removeTempDirs, tempDir } from "../../helpers/workbench.ts";
import { fixtureServer } from "../../helpers/runtime.ts";

after(removeTempDirs);

const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };
const Any = z.object({}).passthrough();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function watched(pin: boolean, body: (session: {
  variant: (name: string) => void;
  told: () => number;
  skills: () => Promise<{ uri: string; resources: unknown }[]>;
  open: () => Promise<string>;
}) => Promise<void>) {
  const dir = tempDir();
  const variant = `${dir}/variant`;
  writeFileSync(variant, "base\n");
  const env = { FIXTURE_LABEL: "a", FIXTURE_SKILLS_VARIANT_FILE: variant, FIXTURE_SKILLS_WATCH: "1" };
  const config = validateConfig({ toolboxes: { dev: { mcpServers: { a: { ...fixtureServer("skills-server.ts", { env }), pin } } } } });
  const cache = new ListingCache({ ...platform, env: { ...platform.env, WORKBENCH_CACHE_DIR: `${dir}/cache` } });
  const pool = new ServerPool(config, host, { cache, pins: new PinStore(lockPathFor(`${dir}/workbench-config.json`), platform) });
  const up = new TransformStream<Uint8Array, Uint8Array>();
  const down = new TransformStream<Uint8Array, Uint8Array>();
  const session = await openSession(new StreamTransport(up.readable, down.writable), {
    config, configPath: `${dir}/workbench-config.json`, pool, cache, onClose: () => {}, onError: () => {},
  });
  const client = new Client({ name: "skills-changed", version: "1" });
  let told = 0;
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void told++);
  await client.connect(new StreamTransport(down.readable, up.writable));
  try {
    await body({
      variant: (name) => writeFileSync(variant, `${name}\n`),
      told: () => told,
      skills: async () => (await client.request({ method: "skills/list", params: {} }, Any)).skills as { uri: string; resources: unknown }[],
      open: async () => {
        const result = await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } }) as CallToolResult;
        return (result.content[0] as { text: string }).text;
      },
    });
  } finally {
    await client.close();
    await session.close();
    await pool.closeAll();
  }
}

/** The count once nothing more comes for a while. */
async function settled(told: () => number): Promise<number> {
  for (let turn = 0; turn < 40; turn++) {
    const before = told();
    await sleep(150);
    if (told() === before) return before;
  }
  return told();
}

test("skills changed: a file's bytes changed (no resource's listing did) is told as resources/list_changed, the new digest listed", async () => {
  await watched(false, async (session) => {
    await session.open();
    const guideDigest = async () => JSON.stringify((await session.skills()).find((skill) => skill.uri === "skill://dev/a/refunds/SKILL.md")?.resources);
    const before = await guideDigest();
    const told = await settled(session.told);
    session.variant("guide");
    await eventually("notifications/resources/list_changed", session.told, (count) => count > told, 10_000);
    assert.notEqual(await guideDigest(), before, "the skill's new digests are listed");
  });
});

test("skills changed: a change the pins withhold is told when it takes a skill out of the offer, and not when the offer stays the same", async () => {
  await watched(true, async (session) => {
    await session.open();
    const told = await settled(session.told);
    session.variant("guide");
    await eventually("notifications/resources/list_changed", session.told, (count) => count > told, 10_000);
    assert.ok(!(await session.skills()).some((skill) => skill.uri === "skill://dev/a/refunds/SKILL.md"), "withheld: out of skills/list");
    const again = await settled(session.told);
    // refunds, withheld already, changes its description and gains a file: nothing the client may see changes.
    session.variant("changed");
    await eventually("the change seen", session.open, (text) => /skill 'skill:\/\/refunds\/SKILL\.md' of 'a' \(frontmatter, files changed\)/.test(text), 10_000);
    assert.equal(await settled(session.told), again, "not told");
  });
});
