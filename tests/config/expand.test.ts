import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_SETTINGS } from "../../src/config/index.ts";
import { expandString } from "../../src/config/expand.ts";
import { configErrorOf, loadJson, rejectsWithConfigError, withServer, IN_FILE } from "./helpers.ts";

const PATH = ["toolboxes", "dev", "mcpServers", "fs", "command"];
const expand = (text: string, env: Record<string, string | undefined>) => expandString(text, env, PATH);
const expandError = (text: string, env: Record<string, string | undefined> = {}) => configErrorOf(() => expand(text, env));

test("expandString: forms: ${VAR} takes the variable's value", () => {
  assert.equal(expand("${HOME}/bin", { HOME: "/home/me" }), "/home/me/bin");
});

test("expandString: forms: ${VAR} set but empty gives an empty string", () => {
  assert.equal(expand("[${EMPTY}]", { EMPTY: "" }), "[]");
});

test("expandString: forms: ${VAR:-default} uses the value when set and non-empty", () => {
  assert.equal(expand("${PORT:-8080}", { PORT: "9000" }), "9000");
});

test("expandString: forms: ${VAR:-default} uses the default when unset or empty", () => {
  assert.equal(expand("${PORT:-8080}", {}), "8080");
  assert.equal(expand("${PORT:-8080}", { PORT: undefined }), "8080");
  assert.equal(expand("${PORT:-8080}", { PORT: "" }), "8080");
});

test("expandString: forms: ${VAR:-} gives an empty string when unset", () => {
  assert.equal(expand("[${MISSING:-}]", {}), "[]");
});

test("expandString: forms: defaults may hold spaces, colons, dashes and dollars", () => {
  assert.equal(expand("${URL:-http://localhost:8080/a-b $x}", {}), "http://localhost:8080/a-b $x");
});

test("expandString: forms: several references in one string", () => {
  const env = { HOST: "db.local", DB: "app" };
  assert.equal(expand("postgres://${HOST}:${PORT:-5432}/${DB}?x=${HOST}", env), "postgres://db.local:5432/app?x=db.local");
});

test("expandString: forms: text without ${ is untouched, and $VAR without braces is literal", () => {
  const env = { HOME: "/home/me", VAR: "v" };
  for (const text of ["plain", "$HOME/bin", "cost: $5", "{VAR}", "$ {VAR}", "$$", "a}b", ""]) {
    assert.equal(expand(text, env), text);
  }
});

test("expandString: forms: substituted values are not expanded again", () => {
  assert.equal(expand("${A}", { A: "${B}", B: "b" }), "${B}");
});

test("expandString: forms: only own properties of env count as variables", () => {
  assert.equal(
    expandError("${constructor}"),
    "Environment variable constructor is not set (used at toolboxes.dev.mcpServers.fs.command)",
  );
});

test("expandString: errors: an unset ${VAR} names the variable and where it is used", () => {
  assert.equal(
    expandError("${API_KEY}", { OTHER: "x" }),
    "Environment variable API_KEY is not set (used at toolboxes.dev.mcpServers.fs.command)",
  );
});

test("expandString: errors: malformed references", () => {
  const expected = "Invalid variable reference at toolboxes.dev.mcpServers.fs.command: expected ${NAME} or ${NAME:-default}";
  for (const text of ["${1X}", "${UNCLOSED", "a ${A:-b", "${}", "${A:b}", "${A-b}", "${A B}", "${A:-${B}}", "ok ${A} ${"]) {
    assert.equal(expandError(text, { A: "a", B: "b" }), expected, text);
  }
});

const SECRET = "hunter2-secret";

test("expandConfig through loadConfig: expands command, each arg, each env value and cwd", async () => {
  const env = { BIN: "/opt/bin", ROOT: "/data", TOKEN: "t0k", PROJECT: "/srv/app" };
  const { config } = await loadJson(withServer({
    command: "${BIN}/server",
    args: ["--root", "${ROOT}", "--mode=${MODE:-dev}"],
    env: { API_TOKEN: "${TOKEN}", LEVEL: "${LEVEL:-info}" },
    cwd: "${PROJECT}/work",
  }), env);
  assert.deepEqual(config.toolboxes.dev.mcpServers.fs, {
    command: "/opt/bin/server",
    args: ["--root", "/data", "--mode=dev"],
    env: { API_TOKEN: "t0k", LEVEL: "info" },
    cwd: "/srv/app/work",
    transport: "stdio",
    ...DEFAULT_SETTINGS,
  });
});

test("expandConfig through loadConfig: leaves names, descriptions and toolFilters alone", async () => {
  const env = { X: "expanded" };
  const { config } = await loadJson({
    toolboxes: {
      "${X}": {
        description: "Uses ${X}",
        mcpServers: { "${X}": { command: "run", toolFilters: ["${X}_*"], env: { "${X}": "v" } } },
      },
    },
  }, env);
  assert.deepEqual(config, {
    toolboxes: {
      "${X}": {
        description: "Uses ${X}",
        openDetail: "full",
        mcpServers: {
          "${X}": { command: "run", args: [], env: { "${X}": "v" }, toolFilters: ["${X}_*"], transport: "stdio", ...DEFAULT_SETTINGS },
        },
      },
    },
  });
});

/** Why the server `fs` cannot be configured, once the file is loaded. */
const unconfigured = async (server: Record<string, unknown>, env: Record<string, string> = {}) =>
  (await loadJson(withServer(server), env)).config.toolboxes.dev.mcpServers.fs.unconfigured;

test("expandConfig through loadConfig: an unset variable fails its server alone, located; a bad reference fails the file", async () => {
  const twoServers = { toolboxes: { prod: { mcpServers: { db: { command: "db", env: { API_KEY: "${API_KEY}" } }, ok: { command: "ok" } } } } };
  const loaded = (await loadJson(twoServers)).config.toolboxes.prod.mcpServers;
  assert.equal(loaded.db.unconfigured, "Environment variable API_KEY is not set (used at toolboxes.prod.mcpServers.db.env.API_KEY)");
  assert.equal(loaded.ok.unconfigured, undefined);
  assert.equal(
    await unconfigured({ command: "x", args: ["a", "${MISSING}", "${TOO}"] }),
    "Environment variable MISSING is not set (used at toolboxes.dev.mcpServers.fs.args[1]); " +
      "Environment variable TOO is not set (used at toolboxes.dev.mcpServers.fs.args[2])",
  );
  await rejectsWithConfigError(
    loadJson(withServer({ command: "x", cwd: "${1DIR}" })),
    IN_FILE + "Invalid variable reference at toolboxes.dev.mcpServers.fs.cwd: expected ${NAME} or ${NAME:-default}",
  );
  assert.equal(await unconfigured({ command: "x", env: { "MY.VAR": "${NOPE}" } }), 'Environment variable NOPE is not set (used at toolboxes.dev.mcpServers.fs.env["MY.VAR"])');
});

test("expandConfig through loadConfig: a command or cwd that expands to nothing is rejected", async () => {
  await rejectsWithConfigError(
    loadJson(withServer({ command: "${CMD}" }), { CMD: "" }),
    IN_FILE + "Invalid configuration at toolboxes.dev.mcpServers.fs.command: expected a non-empty string after expanding environment variables",
  );
  await rejectsWithConfigError(
    loadJson(withServer({ command: "x", cwd: "${DIR:-}" })),
    IN_FILE + "Invalid configuration at toolboxes.dev.mcpServers.fs.cwd: expected a non-empty string after expanding environment variables",
  );
});

test("expandConfig through loadConfig: the value of a secret variable never appears in an error", async () => {
  const env = { SECRET, EMPTY: "" };
  const secretServer = { command: "x", env: { TOKEN: "${SECRET}" }, args: ["--token=${SECRET}"] };
  for (const server of [{ ...secretServer, args: ["--token=${SECRET}", "${MISSING}"] }, { ...secretServer, env: { TOKEN: "${SECRET}-${MISSING}" } }]) {
    const reason = await unconfigured(server, env);
    assert.match(reason ?? "", /MISSING is not set/);
    assert.ok(!reason!.includes(SECRET), reason ?? "");
  }
  const broken: Record<string, unknown>[] = [
    { ...secretServer, env: { TOKEN: "${SECRET}${" } },
    { ...secretServer, cwd: "${1X}" },
    { ...secretServer, command: "${EMPTY}" },
    { ...secretServer, transport: "${SECRET}" },
  ];
  for (const server of broken) {
    await assert.rejects(loadJson(withServer(server), env), (error: Error) => {
      assert.equal(error.name, "ConfigError");
      assert.ok(!error.message.includes(SECRET), error.message);
      return true;
    });
  }
});
