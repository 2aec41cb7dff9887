/** check shows who may use the workbench served over HTTP: clients' names and grants, never a token nor its hash. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { runCheck } from "../../src/cli/check.ts";
import { capturedPlatform } from "../helpers/captured-platform.ts";
import { tempDir, writeConfig } from "../helpers/workbench.ts";

const HASH = "0123456789abcdef".repeat(4);
const SECRET = "ci-secret-4471";

test("check: the serve key's clients, grants, issuer and origins; no token or hash in the table or the JSON", async () => {
  const dir = tempDir();
  try {
    const configPath = writeConfig(dir, {
      toolboxes: { dev: {}, ops: {} },
      serve: {
        clients: { alice: { tokenSha256: HASH, toolboxes: ["dev", "ops"] }, ci: { token: "${CI_TOKEN}", toolboxes: ["*"] } },
        oauth: { issuer: "https://idp.example.com", jwksUri: "https://idp.example.com/jwks", audience: ["https://wb.example.com/mcp"] },
        allowedOrigins: ["https://app.example.com"],
      },
    });
    const { fake, out } = capturedPlatform({ env: { CI_TOKEN: SECRET } });
    assert.equal(await runCheck(fake, { configPath, options: {}, positionals: [] }), 0, out.stderr);
    assert.equal(out.stdout, [
      `Configuration: ${configPath}`,
      "No servers to check",
      "",
      "Served over HTTP to:",
      "  client 'alice': toolboxes 'dev', 'ops' (token given by its SHA-256)",
      "  client 'ci': every toolbox (token from the environment)",
      "  tokens of 'https://idp.example.com' for 'https://wb.example.com/mcp': the toolboxes of their scopes toolbox:NAME (toolbox:* for all)",
      "  web pages from loopback and 'https://app.example.com'",
      "  sessions end after 30 idle minutes",
      "",
    ].join("\n"));

    const json = capturedPlatform({ env: { CI_TOKEN: SECRET } });
    assert.equal(await runCheck(json.fake, { configPath, options: { "--json": true }, positionals: [] }), 0);
    const report = JSON.parse(json.out.stdout);
    assert.deepEqual(report.serve.clients, [
      { name: "alice", toolboxes: ["dev", "ops"], token: "sha256" },
      { name: "ci", toolboxes: "*", token: "environment" },
    ]);
    for (const text of [out.stdout, out.stderr, json.out.stdout]) assert.ok(!text.includes(SECRET) && !text.includes(HASH));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("check: a client whose token variable is unset is shown refused, with why, and check exits 1", async () => {
  const dir = tempDir();
  try {
    const configPath = writeConfig(dir, { toolboxes: { dev: {} }, serve: { clients: { ci: { token: "${CI_TOKEN}", toolboxes: ["*"] } } } });
    const { fake, out } = capturedPlatform({ env: {} });
    assert.equal(await runCheck(fake, { configPath, options: {}, positionals: [] }), 1, out.stderr);
    assert.ok(
      out.stdout.includes("  client 'ci': refused, its token cannot be read: Environment variable CI_TOKEN is not set (used at serve.clients.ci.token)\n"),
      out.stdout,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
