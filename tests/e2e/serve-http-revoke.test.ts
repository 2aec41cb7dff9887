/**
 * `serve.clients` changed while serving over HTTP (issue 41): a client removed, or given a new
 * token, is refused as soon as the change applies (the live configuration's poll and settle: the
 * watch's own tests time those), its sessions end and the server processes only it used stop; a
 * client added is let in without a restart.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { renameSync, writeFileSync } from "node:fs";
import process from "node:process";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client } from "../helpers/sdk.ts";
import { startHttpWorkbench } from "../helpers/http-workbench.ts";
import { eventually, fx } from "../helpers/toolbox.ts";
import { removeTempDirs } from "../helpers/workbench.ts";

after(removeTempDirs);

const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const ALICE = "alice-7b1e0d", ALICE_NEW = "alice-new-55f0c1", BOB = "bob-3c9a2f", CAROL = "carol-a0d4e7";
const toolboxes = { dev: { description: "d", mcpServers: { a: fx("A") } } };
const client = (tokenSha256: string) => ({ tokenSha256, toolboxes: ["*"] });

async function connect(url: string, token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const sdk = new Client({ name: "revoke-test", version: "1.0.0" });
  await sdk.connect(transport);
  return sdk;
}

async function pidOf(sdk: Client): Promise<number> {
  await sdk.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } });
  const result = await sdk.callTool({ name: "use_tool", arguments: { tool: { toolbox: "dev", server: "a", name: "pid" } } });
  return Number((result as { content: { text: string }[] }).content[0].text);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The status of an initialize with this token. */
async function statusWith(url: string, token: string): Promise<number> {
  const response = await fetch(url, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } }),
  });
  await response.body?.cancel();
  return response.status;
}

test("serve --http: a client removed or given a new token is refused once the change applies, its sessions end, its processes stop; one added gets in", async () => {
  const wb = await startHttpWorkbench({ toolboxes, serve: { clients: { alice: client(sha(ALICE)), bob: client(sha(BOB)) } } });
  const clients: Client[] = [];
  try {
    const bob = await connect(wb.url, BOB);
    const alice = await connect(wb.url, ALICE);
    clients.push(bob, alice);
    const bobPid = await pidOf(bob);
    const alicePid = await pidOf(alice);
    assert.notEqual(bobPid, alicePid, "each client has its own process");
    assert.equal(await statusWith(wb.url, CAROL), 401);
    // bob removed, alice's token replaced, carol added: saved by rename, as an editor does.
    const next = { toolboxes, serve: { clients: { alice: client(sha(ALICE_NEW)), carol: client(sha(CAROL)) } } };
    writeFileSync(`${wb.configPath}.tmp`, JSON.stringify(next));
    const saved = Date.now();
    renameSync(`${wb.configPath}.tmp`, wb.configPath);
    // Awaited, not timed: the workbench says it applied the change, and from then on bob is refused
    // (no retry). The waits' bounds only catch a hang; how long the file took to settle is printed.
    await eventually("the change applied", () => wb.stderr(), (text) => /applied the configuration from /.test(text), 15_000);
    assert.equal(await statusWith(wb.url, BOB), 401, "refused once the change is applied");
    process.stderr.write(`bob refused ${Date.now() - saved} ms after the save\n`);
    // Logged once the revoked sessions ended, which may be after their processes are gone: awaited too.
    await eventually("the change to 'serve' logged", () => wb.stderr(), (text) => /Applied the change to 'serve'/.test(text), 15_000);
    assert.match(wb.stderr(), /Applied the change to 'serve': who may connect is the new configuration's; 2 session\(s\) of revoked clients ended/);
    await eventually("bob's and alice's old processes stopped", () => [alive(bobPid), alive(alicePid)], (live) => !live[0] && !live[1], 15_000);
    assert.doesNotMatch(wb.stderr(), /'serve' changed: applies at the next start/);
    assert.equal(await statusWith(wb.url, ALICE), 401);
    assert.equal(await statusWith(wb.url, ALICE_NEW), 200);
    assert.equal(await statusWith(wb.url, CAROL), 200);
    const carol = await connect(wb.url, CAROL);
    clients.push(carol);
    assert.ok(alive(await pidOf(carol)));
    // bob's client, still holding its session id, is refused on its next call.
    await assert.rejects(bob.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } }));
  } finally {
    await Promise.allSettled(clients.map((sdk) => sdk.close()));
    await wb.stop();
  }
});

