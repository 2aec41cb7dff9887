/**
 * One contract for every platform adapter, run against the one the current runtime resolves
 * through `#platform` (so `bun test` checks the Bun adapter and `deno test` the Deno one).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import { runtimeName } from "../helpers/runtime.ts";

const decoder = new TextDecoder();

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

const env = { PATH: "/usr/bin:/bin" };

test(`platform (${runtimeName}): the runtime resolves its own adapter`, () => {
  assert.equal(platform.runtime, runtimeName);
});

test("platform: spawn cat echoes through web streams until EOF, exit code 0", async () => {
  const child = platform.spawn("cat", [], { env });
  assert.ok(child.pid > 0);
  const output = readAll(child.stdout);
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode("hello\n"));
  await writer.write(new TextEncoder().encode("wörld ✓\n"));
  await writer.close();
  assert.equal(await output, "hello\nwörld ✓\n");
  assert.deepEqual(await child.exited, { code: 0, signal: null });
});

test("platform: exit code is reported", async () => {
  const child = platform.spawn("sh", ["-c", "exit 7"], { env });
  assert.deepEqual(await child.exited, { code: 7, signal: null });
});

test("platform: kill ends the child and reports the signal", async () => {
  const child = platform.spawn("sleep", ["30"], { env });
  child.kill("SIGTERM");
  assert.deepEqual(await child.exited, { code: null, signal: "SIGTERM" });
  child.kill("SIGKILL"); // after exit: no error
});

test("platform: the child's environment is exactly the one given", async () => {
  const child = platform.spawn("env", [], { env: { ONLY_THIS: "1", PATH: "/usr/bin:/bin" } });
  const lines = (await readAll(child.stdout)).trim().split("\n").sort();
  assert.deepEqual(lines, ["ONLY_THIS=1", "PATH=/usr/bin:/bin"]);
  await child.exited;
});

test("platform: cwd is applied", async () => {
  const child = platform.spawn("pwd", [], { env, cwd: "/tmp" });
  assert.equal((await readAll(child.stdout)).trim(), "/tmp");
  await child.exited;
});

test("platform: a command that does not exist throws one clear error", () => {
  assert.throws(() => platform.spawn("no-such-command-xyz", [], { env }), {
    message: "Cannot start 'no-such-command-xyz': command not found",
  });
});

test("platform: readTextFile reads UTF-8 and rejects for a missing file", async () => {
  const text = await platform.readTextFile(new URL("../../package.json", import.meta.url).pathname);
  assert.match(text, /"name": "mcp-workbench"/);
  await assert.rejects(platform.readTextFile("/no/such/file.json"));
});

test("platform: env and cwd are snapshots of ours", () => {
  assert.equal(typeof platform.env.PATH, "string");
  assert.ok(platform.cwd.startsWith("/"));
  assert.ok(Array.isArray(platform.args));
});
