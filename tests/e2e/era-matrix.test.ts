/**
 * The era matrix: each client (SDK v2 in legacy, auto and pinned-2026 modes, SDK 1.32) in front
 * of the workbench, each server kind behind it (SDK 1.32 on stdio, SDK v2 serving both eras on
 * stdio, SDK v2 serving only 2026-07-28 on stdio, SDK v2 over stateless HTTP). In each cell: the
 * toolbox opens, a call is answered, an elicitation goes to the client and back, and a cancelled
 * call is cancelled at the server.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { CLIENT_KINDS, connectEraClient, type EraClient, type ToolResult } from "../helpers/era-clients.ts";
import { eraConfig, SERVERS, stopEraServers } from "../helpers/era-servers.ts";
import { removeTempDirs, tempDir, writeConfig } from "../helpers/workbench.ts";
import { eventually, firstProgress } from "../helpers/toolbox.ts";

after(async () => {
  await stopEraServers();
  removeTempDirs();
});

const textOf = (result: ToolResult) => result.content?.find((block) => block.type === "text")?.text ?? "";
const use = (
  client: EraClient,
  server: string,
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
  onprogress?: () => void,
) =>
  client.call("use_tool", { tool: { toolbox: "era", server, name }, arguments: args }, signal, onprogress);

for (const kind of CLIENT_KINDS) {
  test(`era matrix: a ${kind} client`, async (t) => {
    const path = writeConfig(tempDir(), await eraConfig());
    const client = await connectEraClient(kind, path, {}, "Ada");
    try {
      assert.equal(client.era, kind === "v2-pinned" || kind === "v2-auto" ? "modern" : "legacy");
      assert.match(client.instructions ?? "", /- era: Servers of both eras/);
      const opened = JSON.parse(textOf(await client.call("open_toolbox", { toolbox_name: "era" })));
      assert.equal(opened.servers_connected, Object.keys(SERVERS).length, JSON.stringify(opened));
      for (const [name, server] of Object.entries(SERVERS)) {
        await t.test(`${kind} → ${name}`, async () => {
          assert.match(textOf(await use(client, name, "echo", { text: "hi" })), server.echoed);
          const confirmed = await use(client, name, "confirm", { what: "deploy" });
          assert.equal(textOf(confirmed), "deploy confirmed by Ada", `${JSON.stringify(confirmed)}\n${client.stderr()}`);
          const before = server.cancelled.read(textOf(await use(client, name, server.cancelled.name, {})));
          const controller = new AbortController();
          // Cancelled once the server has the call (its count of waits begun, else the wait's first
          // progress), not after a guessed time: one cancelled before it got there never reaches it.
          const waits = firstProgress(`${name}'s ${server.wait.name}`);
          const begun = async () => Number(textOf(await use(client, name, server.begun!, {})));
          const begunBefore = server.begun ? await begun() : 0;
          const onprogress = server.begun ? undefined : waits.onprogress;
          const waiting = use(client, name, server.wait.name, server.wait.args, controller.signal, onprogress);
          if (server.begun) await eventually(`${name}'s wait begun`, begun, (count) => count > begunBefore);
          else await waits.begun();
          controller.abort("the user stopped it");
          await assert.rejects(waiting);
          await eventually("the server to see the cancellation", async () =>
            server.cancelled.read(textOf(await use(client, name, server.cancelled.name, {}))), (count) => count === before + 1);
        });
      }
    } finally {
      await client.close();
    }
  });
}
