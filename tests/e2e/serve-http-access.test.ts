/**
 * Who may do what, end to end through `serve --http` (from source or the built executable): a
 * request without a token gets 401 pointing at the protected resource metadata, which is served;
 * a foreign Origin gets 403; a static token (hashed, or from the environment) and a JWT from a
 * local JWKS each open a session that sees only its granted toolboxes, a toolbox it may not use
 * answering exactly as one that does not exist; a JWT for another audience is refused.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client } from "../helpers/sdk.ts";
import { type HttpWorkbench, startHttpWorkbench } from "../helpers/http-workbench.ts";
import { fx } from "../helpers/toolbox.ts";
import { removeTempDirs } from "../helpers/workbench.ts";

const ISSUER = "https://idp.test";
const AUDIENCE = "https://wb.test/mcp";
const ALICE = "alice-token-0123456789";
const CI = "ci-token-9876543210";

let jwks: HttpServer;
let jwksUrl = "";
let privateKey: CryptoKey;
let wb: HttpWorkbench;

before(async () => {
  const pair = await generateKeyPair("ES256", { extractable: true });
  privateKey = pair.privateKey as CryptoKey;
  const key: JWK = { ...await exportJWK(pair.publicKey), kid: "k1", alg: "ES256", use: "sig" };
  jwks = createServer((_, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ keys: [key] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
  jwksUrl = `http://127.0.0.1:${(jwks.address() as { port: number }).port}/jwks`;
  wb = await startHttpWorkbench({
    toolboxes: {
      dev: { description: "Dev tools", mcpServers: { a: fx("a") } },
      ops: { description: "Ops tools", mcpServers: { b: fx("b") } },
    },
    serve: {
      clients: {
        alice: { tokenSha256: createHash("sha256").update(ALICE).digest("hex"), toolboxes: ["dev"] },
        ci: { token: "${CI_TOKEN}", toolboxes: ["*"] },
      },
      oauth: { issuer: ISSUER, jwksUri: jwksUrl, audience: [AUDIENCE] },
      allowedOrigins: ["https://app.test"],
    },
  }, { CI_TOKEN: CI });
});

after(async () => {
  const code = await wb?.stop();
  await new Promise((resolve) => jwks?.close(resolve));
  removeTempDirs();
  assert.equal(code, 0, wb?.stderr());
});

const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };

function post(headers: Record<string, string>): Promise<Response> {
  return fetch(wb.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(initialize),
  });
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: "access-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(wb.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

function jwt(audience: string, scope: string, subject = "bob"): Promise<string> {
  return new SignJWT({ scope })
    .setProtectedHeader({ alg: "ES256", kid: "k1" })
    .setIssuer(ISSUER)
    .setAudience(audience)
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(privateKey);
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;
const open = async (client: Client, name: string) => textOf(await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: name } }));

test("serve --http access: no token gets 401 naming the metadata, which is served; a foreign Origin gets 403", async () => {
  const refused = await post({});
  assert.equal(refused.status, 401);
  const challenge = refused.headers.get("www-authenticate") ?? "";
  const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
  assert.equal(metadataUrl, new URL("/.well-known/oauth-protected-resource/mcp", wb.url).href, challenge);
  await refused.body?.cancel();
  const metadata = await (await fetch(metadataUrl!)).json();
  assert.deepEqual(metadata.authorization_servers, [ISSUER]);
  assert.deepEqual(metadata.scopes_supported, ["toolbox:*"], "public: it names no toolbox");
  assert.equal(metadata.resource, wb.url);
  const wrong = await post({ Authorization: "Bearer not-a-token" });
  assert.equal(wrong.status, 401);
  assert.match(wrong.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
  await wrong.body?.cancel();
  const foreign = await post({ Authorization: `Bearer ${ALICE}`, Origin: "https://evil.test" });
  assert.equal(foreign.status, 403);
  await foreign.body?.cancel();
  assert.ok(!wb.stderr().includes(ALICE) && !wb.stderr().includes(CI), "no token in the log");
});

test("serve --http access: a hashed token sees its toolboxes only; another toolbox answers as one that does not exist", async () => {
  const alice = await connect(ALICE);
  try {
    const instructions = alice.getInstructions() ?? "";
    assert.ok(instructions.includes("dev") && !instructions.includes("ops"), instructions);
    assert.equal(await open(alice, "ops"), await open(alice, "never-configured").then((text) => text.replaceAll("never-configured", "ops")));
    assert.equal(JSON.parse(await open(alice, "dev")).toolbox, "dev");
    const echo = await alice.callTool({ name: "use_tool", arguments: { tool: { toolbox: "dev", server: "a", name: "echo" }, arguments: { text: "hi" } } });
    assert.equal(textOf(echo), "a: hi");
  } finally {
    await alice.close();
  }
  const ci = await connect(CI);
  try {
    assert.equal(JSON.parse(await open(ci, "ops")).toolbox, "ops", "the environment's token grants every toolbox");
  } finally {
    await ci.close();
  }
});

test("serve --http access: a JWT from the issuer's keys grants the toolboxes of its scopes; another audience is refused", async () => {
  const bob = await connect(await jwt(AUDIENCE, "toolbox:ops"));
  try {
    assert.equal(JSON.parse(await open(bob, "ops")).toolbox, "ops");
    assert.match(await open(bob, "dev"), /^Toolbox 'dev' not found in configuration/);
  } finally {
    await bob.close();
  }
  const elsewhere = await post({ Authorization: `Bearer ${await jwt("https://other.test/mcp", "toolbox:*")}` });
  assert.equal(elsewhere.status, 401);
  await elsewhere.body?.cancel();
});
