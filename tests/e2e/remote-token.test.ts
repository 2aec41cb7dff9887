/**
 * A remote server that wants a bearer token, given one in headers.Authorization (issue 41): a
 * refused token is said as such in check, tools, call and serving, never "login required"; `auth`
 * says there is no OAuth login to do, or that the server needs none, and never dumps a parser's
 * output; the workbench's own 401 without serve.oauth names no resource metadata.
 */
import { after, before, test } from "node:test";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import assert from "node:assert/strict";
import { type HttpWorkbench, startHttpWorkbench } from "../helpers/http-workbench.ts";
import { runCli } from "../helpers/cli.ts";
import { fx, openToolbox } from "../helpers/toolbox.ts";
import { startHttpFixture } from "../helpers/http-fixture.ts";
import { removeTempDirs, tempDir, withWorkbench, writeConfig } from "../helpers/workbench.ts";

const TOKEN = "bob-token-31c9aa";
const REFUSED = "the server refused the token in headers.Authorization (HTTP 401)";
let guarded: HttpWorkbench;
let open: HttpWorkbench;
let configPath: string;
let config: unknown;

before(async () => {
  guarded = await startHttpWorkbench({
    toolboxes: { dev: { description: "d", mcpServers: { a: fx("A") } } },
    serve: { clients: { bob: { token: "${BOB_TOKEN}", toolboxes: ["*"] } } },
  }, { BOB_TOKEN: TOKEN });
  open = await startHttpWorkbench({ toolboxes: { dev: { description: "d", mcpServers: { a: fx("A") } } } });
  config = {
    toolboxes: {
      rem: {
        description: "remote",
        mcpServers: {
          wrong: { url: guarded.url, headers: { Authorization: "Bearer not-the-token" } },
          none: { url: guarded.url },
          open: { url: open.url },
          right: { type: "http", url: guarded.url, headers: { authorization: `Bearer ${TOKEN}` } },
        },
      },
    },
  };
  configPath = writeConfig(tempDir(), config);
});

after(async () => {
  await guarded?.stop();
  await open?.stop();
  removeTempDirs();
});

test("remote token: check, tools and call say the configured token was refused, not 'login required'", async () => {
  const check = await runCli(["check", "--config", configPath]);
  const checked = check.stdout + check.stderr;
  assert.ok(checked.includes(REFUSED), checked);
  assert.doesNotMatch(checked.split("\n").filter((line) => line.includes("wrong")).join("\n"), /login required/);
  const tools = await runCli(["tools", "rem", "--config", configPath]);
  assert.ok((tools.stdout + tools.stderr).includes(REFUSED), tools.stdout + tools.stderr);
  const call = await runCli(["call", "rem", "wrong", "echo", '{"text":"x"}', "--config", configPath]);
  assert.notEqual(call.code, 0);
  assert.ok((call.stdout + call.stderr).includes(REFUSED), call.stdout + call.stderr);
  const right = await runCli(["call", "rem", "right", "open_toolbox", `{"toolbox_name":"dev"}`, "--config", configPath]);
  assert.equal(right.code, 0, right.stderr);
});

test("remote token: serving, open_toolbox names the refused token for that server", async () => {
  await withWorkbench(config, async (session) => {
    const text = JSON.stringify(await openToolbox(session, "rem"));
    assert.ok(text.includes(REFUSED), text);
  });
});

test("remote token: auth on a server given a token, on one needing no login, on one without OAuth: plain words", async () => {
  const given = await runCli(["auth", "rem", "wrong", "--no-browser", "--config", configPath]);
  assert.equal(given.code, 2);
  assert.match(given.stderr, /Server 'wrong' in toolbox 'rem' needs no OAuth login: the workbench sends the token in headers\.Authorization/);
  const free = await runCli(["auth", "rem", "open", "--no-browser", "--config", configPath]);
  assert.equal(free.code, 0, free.stderr);
  assert.match(free.stderr, /Server 'open' in toolbox 'rem' needs no login: it answered initialize and tools\/list without a token/);
  const none = await runCli(["auth", "rem", "none", "--no-browser", "--config", configPath]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /does not seem to offer an OAuth login/);
  assert.doesNotMatch(none.stderr, /Raw body|"expected"|Invalid OAuth error response|JSON Parse|Unexpected token/);
  assert.equal(none.stderr.trim().split("\n").length, 1, none.stderr);
});

test("remote token: the workbench's own 401 without serve.oauth names no resource metadata, which is not served", async () => {
  const refused = await fetch(guarded.url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  assert.equal(refused.status, 401);
  assert.equal(refused.headers.get("www-authenticate"), "Bearer");
  await refused.body?.cancel();
  const metadata = await fetch(new URL("/.well-known/oauth-protected-resource/mcp", guarded.url));
  assert.equal(metadata.status, 404);
  assert.match((await metadata.json()).error_description, /send 'Authorization: Bearer <token>'/);
});

test("remote token: a server whose 401 leads to HTML pages gets one plain line in check and auth, no parser output", async () => {
  const html: Server = createServer((request, response) => {
    const page = "<!doctype html><html><body>Sign in</body></html>";
    const refused = request.url?.startsWith("/mcp") === true;
    response.writeHead(refused ? 401 : 200, { "content-type": "text/html", ...(refused && { "www-authenticate": 'Bearer realm="x"' }) });
    response.end(page);
  });
  await new Promise<void>((resolve) => html.listen(0, "127.0.0.1", resolve));
  try {
    const url = `http://127.0.0.1:${(html.address() as AddressInfo).port}/mcp`;
    const path = writeConfig(tempDir(), { toolboxes: { rem: { description: "r", mcpServers: { html: { url } } } } });
    const check = await runCli(["check", "--config", path]);
    assert.match(check.stdout, /error: the server answered an OAuth request with something that is not JSON \(an HTML page\?\)/);
    const auth = await runCli(["auth", "rem", "html", "--no-browser", "--config", path]);
    assert.equal(auth.code, 1);
    assert.match(auth.stderr, /not JSON \(an HTML page\?\): it does not seem to offer an OAuth login/);
    for (const said of [check.stdout + check.stderr, auth.stderr]) assert.doesNotMatch(said, /JSON Parse error|Unexpected token|Unrecognized token|<!doctype/i);
  } finally {
    html.closeAllConnections();
    await new Promise((resolve) => html.close(resolve));
  }
});

test("remote token: over SSE too, a refused configured token is said as such, with no OAuth login attempted", async () => {
  const fixture = await startHttpFixture({ FIXTURE_OAUTH: "1" });
  try {
    const path = writeConfig(tempDir(), {
      toolboxes: { rem: { description: "r", mcpServers: { sse: { type: "sse", url: fixture.url("/sse"), headers: { Authorization: "Bearer nope" } } } } },
    });
    const check = await runCli(["check", "--config", path]);
    assert.match(check.stdout, /error: the server refused the token in headers\.Authorization \(HTTP 401\)/);
    assert.doesNotMatch(check.stdout, /login required/);
  } finally {
    await fixture.stop();
  }
});
