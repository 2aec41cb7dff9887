/**
 * "Connect your account" across replicas (issue 49 §3 with issue 48's shared store): two
 * `serve --http` processes on one real redis-server. A member's call on one replica asks for a
 * secret; the member's browser reaches the page on the other (as a balancer may send it), which
 * keeps the value (encrypted, in the store) and says so on the store's feed; the call waiting on
 * the first replica goes on with it, and the first replica's server is started with the value.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client, ElicitRequestSchema } from "../helpers/sdk.ts";
import { startHttpWorkbench } from "../helpers/http-workbench.ts";
import { startHttpFixture } from "../helpers/http-fixture.ts";
import { redisMissing, startRedis } from "../helpers/redis.ts";
import { removeTempDirs, tempDir } from "../helpers/workbench.ts";

const TOKEN = "alice-token-0123456789";
const VALUE = "alice-provided-on-b-777";
const TIMEOUT = 60_000;

after(removeTempDirs);

test("connect across replicas: the page sent on one replica lets the call waiting on the other go on", { skip: redisMissing(), timeout: TIMEOUT }, async () => {
  const redis = await startRedis();
  const remote = await startHttpFixture();
  // Each replica on a machine of its own, as far as files go: what they share is the store.
  const env = () => ({ ALICE_TOKEN: TOKEN, WORKBENCH_SECRETS_KEY: key, WORKBENCH_AUTH_DIR: `${tempDir()}/auth` });
  const key = randomBytes(32).toString("base64");
  const config = {
    toolboxes: { dev: { mcpServers: { remote: { type: "http", url: remote.url("/mcp"), headers: { "X-Member-Token": "${client:API_TOKEN}" } } } } },
    serve: { clients: { alice: { token: "${ALICE_TOKEN}", toolboxes: ["*"] } } },
  };
  const a = await startHttpWorkbench(config, env(), "127.0.0.1:0", ["--store", redis.url]);
  const b = await startHttpWorkbench(config, env(), "127.0.0.1:0", ["--store", redis.url]);
  const client = new Client({ name: "alice", version: "1.0.0" }, { capabilities: { elicitation: { url: {} } } });
  const sent: Promise<number>[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    if (request.params.mode !== "url") return { action: "decline" };
    // The browser lands on the other replica.
    const onB = new URL(new URL(request.params.url).pathname, new URL(b.url).origin).href;
    sent.push(fetch(onB, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ value: VALUE }) })
      .then(async (response) => (await response.body?.cancel(), response.status)));
    return { action: "accept" };
  });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(a.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    const call = { name: "use_tool", arguments: { tool: { toolbox: "dev", server: "remote", name: "headers" }, arguments: { name: "x-member-token" } } };
    const result = await client.callTool(call, undefined, { timeout: TIMEOUT });
    const text = (result.content as { text: string }[]).map((item) => item.text).join("");
    assert.equal(result.isError, undefined, text);
    assert.deepEqual(await Promise.all(sent), [200], "the page was sent on the other replica");
    assert.ok((JSON.parse(text) as string[]).includes(createHash("sha256").update(VALUE).digest("hex")), text);
  } finally {
    await client.close();
    for (const replica of [a, b]) assert.equal(await replica.stop(), 0, replica.stderr());
    await remote.stop();
    await redis.stop();
  }
});
