/** Which imported servers make init write its file for the owner only. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { findSecret } from "../../src/cli/init-secrets.ts";

const at = (entry: Record<string, unknown>) => findSecret({ s: entry });

test("init secrets: env or headers values, a URL with a password, a secret option's value, a long random token", () => {
  assert.deepEqual(at({ command: "npx", env: { K: "${K}" } }), { server: "s", field: "env" });
  assert.deepEqual(at({ url: "https://x.invalid/mcp", headers: { A: "b" } }), { server: "s", field: "headers" });
  assert.deepEqual(at({ command: "npx", args: ["-y", "pg", "postgres://u:p@db.invalid/app"] }), { server: "s", field: "args[2]" });
  assert.deepEqual(at({ command: "npx", args: ["serve", "--api-key", "abc"] }), { server: "s", field: "args[2]" });
  assert.deepEqual(at({ command: "npx", args: ["--token=abc"] }), { server: "s", field: "args[0]" });
  assert.deepEqual(at({ command: "npx", args: ["-p", "--client-secret", "x"] }), { server: "s", field: "args[2]" });
  assert.deepEqual(at({ command: "npx", args: ["--PASSWORD", "hunter2"] }), { server: "s", field: "args[1]" });
  assert.deepEqual(at({ command: "npx", args: ["ghp_16C7e42F292c6912E7710c838347Ae178B4a"] }), { server: "s", field: "args[0]" });
  assert.deepEqual(at({ command: "npx", args: ["--header", "Authorization: Bearer 0123456789abcdef0123"] }), { server: "s", field: "args[1]" });
  assert.deepEqual(at({ url: "https://u:p@x.invalid/mcp" }), { server: "s", field: "url" });
  assert.deepEqual(at({ url: "https://x.invalid/mcp?key=a1b2c3d4e5f6g7h8i9j0" }), { server: "s", field: "url" });
  assert.deepEqual(findSecret({ a: { command: "npx" }, b: { command: "npx", args: ["--auth", "x"] } }), { server: "b", field: "args[1]" });
});

test("init secrets: ordinary arguments, paths, packages and references are not secrets", () => {
  const plain = [
    "-y", "@modelcontextprotocol/server-filesystem", "/home/me/projects/workbench-2025", "mcp-server-kubernetes-v2",
    "--api-key", "${API_KEY}", "--token=${TOKEN}", "--api-key", "--verbose", "https://user@example.invalid/x",
    "postgres://localhost:5432/app", "2025.11.25", "123e4567-e89b-12d3-a456-426614174000", "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
  ];
  assert.equal(at({ command: "npx", args: plain, cwd: "/srv/app", env: {}, headers: {} }), undefined);
  assert.equal(at({ url: "http://localhost:3000/mcp" }), undefined);
});
