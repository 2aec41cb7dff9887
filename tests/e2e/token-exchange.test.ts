/**
 * Token exchange end to end (issue 49 §4): `serve --http` with `serve.oauth`, a remote server that
 * says `auth.tokenExchange`, a token endpoint the test runs (RFC 8693), and two members on the
 * official SDK clients of both protocol revisions. Each member's requests to the server carry the
 * token exchanged for that member's own JWT and no other (the server reports digests of the
 * Authorization it received); the member's JWT itself never reaches the server; a token is exchanged
 * once and kept; a member signed in with a token of serve.clients has nothing to exchange and gets
 * an error that says so, with nothing sent for them.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import { decodeJwt, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from "@modelcontextprotocol/client";
import { Client } from "../helpers/sdk.ts";
import { type HttpWorkbench, startHttpWorkbench } from "../helpers/http-workbench.ts";
import { type HttpFixture, startHttpFixture } from "../helpers/http-fixture.ts";
import { removeTempDirs } from "../helpers/workbench.ts";

const ISSUER = "https://idp.test";
const AUDIENCE = "https://wb.test/mcp";
const CLIENT_SECRET = "exchange-client-secret-42";
const CAROL = "carol-static-token-0123456789";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const TIMEOUT = { timeout: 60_000 };

let keys: HttpServer;
let privateKey: CryptoKey;
let remote: HttpFixture;
let wb: HttpWorkbench;
/** What the token endpoint was sent, and what it gave, in order. */
const exchanges: { subject: string; form: URLSearchParams; authorization?: string; token: string }[] = [];

/** The issuer's keys at /jwks; the token endpoint at /token (a token of the subject's name, numbered). */
function identityProvider(key: JWK): HttpServer {
  return createServer((request, response) => {
    if (request.url === "/jwks") {
      response.writeHead(200, { "content-type": "application/json" });
      return response.end(JSON.stringify({ keys: [key] }));
    }
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      const form = new URLSearchParams(body);
      const subject = decodeJwt(form.get("subject_token") ?? "").sub ?? "";
      const token = `exchanged-${subject}-${exchanges.length + 1}`;
      exchanges.push({ subject, form, authorization: request.headers.authorization, token });
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ access_token: token, token_type: "Bearer", expires_in: 3600 }));
    });
  });
}

before(async () => {
  const pair = await generateKeyPair("ES256", { extractable: true });
  privateKey = pair.privateKey as CryptoKey;
  keys = identityProvider({ ...await exportJWK(pair.publicKey), kid: "k1", alg: "ES256", use: "sig" });
  await new Promise<void>((resolve) => keys.listen(0, "127.0.0.1", resolve));
  const idp = `http://127.0.0.1:${(keys.address() as { port: number }).port}`;
  remote = await startHttpFixture();
  wb = await startHttpWorkbench({
    toolboxes: {
      dev: {
        description: "Dev tools",
        mcpServers: {
          api: {
            type: "http",
            url: remote.url("/mcp"),
            auth: {
              tokenExchange: {
                tokenEndpoint: `${idp}/token`,
                audience: "https://api.test",
                scope: "read",
                clientId: "workbench",
                clientSecret: "${EXCHANGE_SECRET}",
              },
            },
          },
        },
      },
    },
    serve: {
      clients: { carol: { token: "${CAROL_TOKEN}", toolboxes: ["*"] } },
      oauth: { issuer: ISSUER, jwksUri: `${idp}/jwks`, audience: [AUDIENCE] },
    },
  }, { EXCHANGE_SECRET: CLIENT_SECRET, CAROL_TOKEN: CAROL });
});

after(async () => {
  const code = await wb?.stop();
  await remote?.stop();
  await new Promise((resolve) => keys?.close(resolve));
  removeTempDirs();
  assert.equal(code, 0, wb?.stderr());
});

function jwt(subject: string): Promise<string> {
  return new SignJWT({ scope: "toolbox:*" }).setProtectedHeader({ alg: "ES256", kid: "k1" }).setIssuer(ISSUER).setAudience(AUDIENCE)
    .setSubject(subject).setIssuedAt().setExpirationTime("10m").sign(privateKey);
}

interface Member {
  /** What open_toolbox answered. */
  opened: string;
  use(args: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  close(): Promise<void>;
}

const call = { name: "use_tool", arguments: { tool: { toolbox: "dev", server: "api", name: "headers" }, arguments: {} } };
const textOf = (result: Record<string, unknown>) => ({
  text: (result.content as { text: string }[]).map((item) => item.text).join(""),
  isError: result.isError === true,
});

/** A member on the SDK 1.32 client (2025-11-25). */
async function legacy(token: string): Promise<Member> {
  const client = new Client({ name: "legacy", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(wb.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  const opened = await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } }, undefined, TIMEOUT);
  return {
    opened: textOf(opened).text,
    use: async (args) => textOf(await client.callTool({ ...call, arguments: { ...call.arguments, arguments: args } }, undefined, TIMEOUT)),
    close: () => client.close(),
  };
}

/** A member on the SDK v2 client pinned to 2026-07-28. */
async function modern(token: string): Promise<Member> {
  const client = new V2Client({ name: "modern", version: "2.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new V2HttpTransport(new URL(wb.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  const opened = await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } }, TIMEOUT);
  return {
    opened: textOf(opened).text,
    use: async (args) => textOf(await client.callTool({ ...call, arguments: { ...call.arguments, arguments: args } }, TIMEOUT)),
    close: () => client.close(),
  };
}

test("token exchange: each member's requests carry the token exchanged for their own JWT, never another's", TIMEOUT, async () => {
  const aliceJwt = await jwt("alice");
  const bobJwt = await jwt("bob");
  const alice = await legacy(aliceJwt);
  const bob = await modern(bobJwt);
  try {
    const seen = async (member: Member) => {
      const { text, isError } = await member.use({ name: "authorization" });
      assert.equal(isError, false, text);
      return JSON.parse(text) as string[];
    };
    await seen(alice);
    await seen(bob);
    const aliceToken = exchanges.find((one) => one.subject === "alice")!.token;
    const bobToken = exchanges.find((one) => one.subject === "bob")!.token;
    const allowed = new Set([sha256(`Bearer ${aliceToken}`), sha256(`Bearer ${bobToken}`)]);
    // Every request the server got carried one member's exchanged token: none without, none with a JWT.
    const all = await seen(alice);
    assert.ok(all.length >= 4, all.join());
    assert.equal(all.every((digest) => allowed.has(digest)), true, `only exchanged tokens: ${all.join()}`);
    assert.ok(all.includes(sha256(`Bearer ${aliceToken}`)) && all.includes(sha256(`Bearer ${bobToken}`)));
    for (const forbidden of [aliceJwt, bobJwt]) assert.equal(all.includes(sha256(`Bearer ${forbidden}`)), false, "a JWT never passes through");
    // Each connection carried one member's token alone.
    const sessions = JSON.parse((await alice.use({ name: "mcp-session-id" })).text) as string[];
    const byConnection = new Map<string, Set<string>>();
    all.forEach((digest, at) => sessions[at] !== "missing" && byConnection.set(sessions[at], (byConnection.get(sessions[at]) ?? new Set()).add(digest)));
    assert.ok(byConnection.size >= 2, "a connection per member");
    for (const tokens of byConnection.values()) assert.equal(tokens.size, 1, "a connection is never shared between members");
    // The exchange as RFC 8693 says, the client authenticated with its secret; once per member, then kept.
    assert.deepEqual(exchanges.map((one) => one.subject).sort(), ["alice", "bob"]);
    const first = exchanges[0];
    assert.equal(first.form.get("grant_type"), "urn:ietf:params:oauth:grant-type:token-exchange");
    assert.equal(first.form.get("audience"), "https://api.test");
    assert.equal(first.form.get("scope"), "read");
    assert.equal(first.authorization, `Basic ${btoa(`workbench:${CLIENT_SECRET}`)}`);
    assert.equal(first.form.get("subject_token"), first.subject === "alice" ? aliceJwt : bobJwt);
  } finally {
    await alice.close();
    await bob.close();
  }
});

test("token exchange: a client of serve.clients has no JWT to exchange: told so, nothing sent for it", TIMEOUT, async () => {
  const before = exchanges.length;
  const carol = await legacy(CAROL);
  try {
    assert.match(carol.opened, /.api'[^]*client 'carol' has no token to exchange: only a client signed in with a JWT of serve\.oauth has one/);
    assert.equal(exchanges.length, before);
    assert.equal(wb.stderr().includes(CLIENT_SECRET), false, "the client secret is never logged");
  } finally {
    await carol.close();
  }
});
