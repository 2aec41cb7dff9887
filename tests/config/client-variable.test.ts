/**
 * `${WORKBENCH_CLIENT}` and `"share": "all"` in the configuration (issue 30, isolation): loading
 * keeps the reference in a stdio server's env and args for the pool to fill in per client, refuses
 * it anywhere else and with `"share": "all"`, and the client's name goes in when a process starts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_SETTINGS } from "../../src/config/index.ts";
import { forClient, LOCAL_CLIENT_NAME, usesClient } from "../../src/config/client-variable.ts";
import { LOCAL_USER } from "../../src/upstream/client-identity.ts";
import { sharedConfig } from "../../src/config/definition.ts";
import { IN_FILE, loadJson, rejectsWithConfigError, withServer } from "./helpers.ts";

test("client variable: loading keeps ${WORKBENCH_CLIENT} in env and args, even when the environment sets it", async () => {
  const env = { DATA: "/srv/data", WORKBENCH_CLIENT: "from-the-environment" };
  const { config } = await loadJson(withServer({
    command: "memory",
    args: ["--file=${DATA}/${WORKBENCH_CLIENT}.json", "${WORKBENCH_CLIENT:-nobody}"],
    env: { MEMORY_FILE_PATH: "${DATA}/${WORKBENCH_CLIENT}/memory.json" },
  }), env);
  const server = config.toolboxes.dev.mcpServers.fs;
  assert.deepEqual(server, {
    command: "memory",
    args: ["--file=/srv/data/${WORKBENCH_CLIENT}.json", "${WORKBENCH_CLIENT}"],
    env: { MEMORY_FILE_PATH: "/srv/data/${WORKBENCH_CLIENT}/memory.json" },
    transport: "stdio",
    ...DEFAULT_SETTINGS,
  });
  assert.equal(usesClient(server), true);
  assert.deepEqual(forClient(server, "alice"), {
    ...server,
    args: ["--file=/srv/data/alice.json", "alice"],
    env: { MEMORY_FILE_PATH: "/srv/data/alice/memory.json" },
  });
  // A server that does not name the client is the same object for every client.
  const plain = { ...server, args: [], env: {} };
  assert.equal(forClient(plain, "alice"), plain);
  // Over stdio, and for the subcommands, the variable is the local user's name.
  assert.equal(LOCAL_CLIENT_NAME, LOCAL_USER.name);
});

test("client variable: anywhere but a stdio server's env and args it is a configuration error", async () => {
  const places: [Record<string, unknown>, string][] = [
    [{ command: "${WORKBENCH_CLIENT}-server" }, "command"],
    [{ command: "x", cwd: "/home/${WORKBENCH_CLIENT}" }, "cwd"],
    [{ url: "https://mcp.example.com/${WORKBENCH_CLIENT}" }, "url"],
    [{ url: "https://mcp.example.com/mcp", headers: { "X-User": "${WORKBENCH_CLIENT}" } }, "headers.X-User"],
  ];
  for (const [server, at] of places) {
    await rejectsWithConfigError(
      loadJson(withServer(server)),
      IN_FILE + `Invalid configuration at toolboxes.dev.mcpServers.fs.${at}: \${WORKBENCH_CLIENT} is only for a stdio server's env and args`,
    );
  }
});

test("share: \"all\" is the one value, kept on the loaded server; with ${WORKBENCH_CLIENT} it is an error", async () => {
  const { config } = await loadJson(withServer({ command: "x", share: "all" }));
  assert.equal(config.toolboxes.dev.mcpServers.fs.share, "all");
  const remote = await loadJson(withServer({ url: "https://mcp.example.com/mcp", share: "all" }));
  assert.equal(remote.config.toolboxes.dev.mcpServers.fs.share, "all");
  await rejectsWithConfigError(
    loadJson(withServer({ command: "x", share: "none" })),
    IN_FILE + 'Invalid configuration at toolboxes.dev.mcpServers.fs.share: expected "all"',
  );
  await rejectsWithConfigError(
    loadJson(withServer({ command: "x", share: "all", env: { MEMORY_FILE_PATH: "/m/${WORKBENCH_CLIENT}.json" } })),
    IN_FILE + 'Invalid configuration at toolboxes.dev.mcpServers.fs.share: "all" cannot be used with ${WORKBENCH_CLIENT} in env or args: one process serves every client',
  );
});

test("share: one definition listed twice is shared by all clients only if every listing says so", async () => {
  const { config } = await loadJson({
    toolboxes: {
      a: { mcpServers: { x: { command: "x", share: "all" } } },
      b: { mcpServers: { x: { command: "x" } } },
      c: { mcpServers: { x: { command: "x", share: "all" } } },
    },
  });
  const [a, b, c] = ["a", "b", "c"].map((name) => config.toolboxes[name].mcpServers.x);
  assert.equal(sharedConfig([a, b, c]).share, undefined);
  assert.equal(sharedConfig([b, a]).share, undefined);
  assert.equal(sharedConfig([a, c]).share, "all");
});
