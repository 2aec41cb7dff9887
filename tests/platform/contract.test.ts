/**
 * One contract for every platform adapter, run against the one the current runtime resolves
 * through `#platform` (so `bun test` checks the Bun adapter and `deno test` the Deno one).
 * Children's stderr is piped: a test that does not read it drains it (spawnChild) or cancels it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { platform } from "#platform";
import type { SpawnOptions } from "../../src/platform/types.ts";
import { repoRoot, runScript, runtimeName } from "../helpers/runtime.ts";
import { runToEnd } from "../helpers/process.ts";
import { isAlive, waitGone } from "../helpers/procs.ts";

const decoder = new TextDecoder();
const fixtures = `${repoRoot}/tests/platform/fixtures`;

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** Rejects once `ms` have passed, so that no wait in these tests is unbounded. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until the text matches, or throws once `ms` have passed. */
async function untilMatch(ms: number, text: () => string, pattern: RegExp): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pattern.test(text())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${ms} ms waiting for ${pattern} in '${text()}'`);
    await delay(25);
  }
}

/** The first line a stream gives, then lets go of the stream. */
async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  let text = "";
  try {
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  return text.split("\n")[0];
}

/** Process group of a live process, from /proc/<pid>/stat ("pid (comm) state ppid pgrp ..."). */
function processGroupOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

const env = { PATH: "/usr/bin:/bin" };

/** Spawns for a test that does not look at stderr: drains it so that the pipe never fills. */
function spawnChild(command: string, args: string[], options: SpawnOptions = { env }) {
  const child = platform.spawn(command, args, options);
  void readAll(child.stderr);
  return child;
}

test(`platform (${runtimeName}): the runtime resolves its own adapter`, () => {
  assert.equal(platform.runtime, runtimeName);
});

test("platform: spawn cat echoes through web streams until EOF, exit code 0", async () => {
  const child = spawnChild("cat", []);
  assert.ok(child.pid > 0);
  const output = readAll(child.stdout);
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode("hello\n"));
  await writer.write(new TextEncoder().encode("wörld ✓\n"));
  await writer.close();
  assert.equal(await within(5_000, "cat's output", output), "hello\nwörld ✓\n");
  assert.deepEqual(await within(5_000, "cat to exit", child.exited), { code: 0, signal: null });
});

test("platform: exit code is reported", async () => {
  const child = spawnChild("sh", ["-c", "exit 7"]);
  assert.deepEqual(await within(5_000, "the exit", child.exited), { code: 7, signal: null });
});

test("platform: stderr is piped apart from stdout", async () => {
  const child = platform.spawn("sh", ["-c", "echo out; echo err >&2"], { env });
  const streams = Promise.all([readAll(child.stdout), readAll(child.stderr)]);
  assert.deepEqual(await within(5_000, "both streams", streams), ["out\n", "err\n"]);
  assert.deepEqual(await within(5_000, "the exit", child.exited), { code: 0, signal: null });
});

test("platform: a cancelled stderr does not block a child that writes much to it", async () => {
  const child = platform.spawn("sh", ["-c", "head -c 1000000 /dev/zero >&2; echo done"], { env });
  await child.stderr.cancel();
  assert.equal(await within(5_000, "the child to go on", readAll(child.stdout)), "done\n");
  assert.equal((await within(5_000, "the exit", child.exited)).code, 0);
});

test("platform: the child leads a process group of its own", async () => {
  const child = spawnChild("sleep", ["30"]);
  try {
    assert.equal(processGroupOf(child.pid), child.pid);
    assert.notEqual(processGroupOf(process.pid), child.pid);
  } finally {
    child.kill("SIGKILL");
    await within(5_000, "the exit", child.exited);
  }
});

test("platform: kill ends the child and reports the signal", async () => {
  const child = spawnChild("sleep", ["30"]);
  child.kill("SIGTERM");
  assert.deepEqual(await within(5_000, "the exit", child.exited), { code: null, signal: "SIGTERM" });
});

test("platform: kill('SIGTERM') ends the child's descendants too", async () => {
  const child = spawnChild("sh", ["-c", "sleep 30 & echo $!; wait"]);
  try {
    const grandchild = Number(await within(5_000, "the grandchild's pid", firstLine(child.stdout)));
    assert.ok(isAlive(grandchild), `grandchild ${grandchild} runs`);
    child.kill("SIGTERM");
    assert.deepEqual(await waitGone([grandchild], 2_000), []);
    assert.equal((await within(5_000, "the exit", child.exited)).signal, "SIGTERM");
  } finally {
    child.kill("SIGKILL");
  }
});

test("platform: kill('SIGKILL') ends a child that ignores SIGTERM", async () => {
  const child = spawnChild("sh", ["-c", 'trap "" TERM; sleep 30 & echo $!; wait']);
  try {
    const grandchild = Number(await within(5_000, "the grandchild's pid", firstLine(child.stdout)));
    child.kill("SIGTERM");
    await delay(300);
    assert.ok(isAlive(child.pid) && isAlive(grandchild), "SIGTERM is ignored");
    child.kill("SIGKILL");
    assert.deepEqual(await within(5_000, "the exit", child.exited), { code: null, signal: "SIGKILL" });
    assert.deepEqual(await waitGone([grandchild], 2_000), []);
  } finally {
    child.kill("SIGKILL");
  }
});

test("platform: kill after the child and its group have gone does not throw", async () => {
  const child = spawnChild("true", []);
  const status = await within(5_000, "the exit", child.exited);
  assert.doesNotThrow(() => child.kill("SIGTERM"));
  assert.doesNotThrow(() => child.kill("SIGKILL"));
  assert.deepEqual(await child.exited, status);
});

test("platform: kill after the child has exited still ends the grandchildren it left behind", async () => {
  const child = spawnChild("sh", ["-c", "sleep 30 & echo $!"]);
  const grandchild = Number(await within(5_000, "the grandchild's pid", firstLine(child.stdout)));
  try {
    assert.equal((await within(5_000, "the exit", child.exited)).code, 0);
    assert.ok(isAlive(grandchild), "the grandchild outlives the child");
    child.kill("SIGKILL");
    assert.deepEqual(await waitGone([grandchild], 2_000), []);
  } finally {
    if (isAlive(grandchild)) process.kill(grandchild, "SIGKILL");
  }
});

test("platform: a child does not keep our process alive", async () => {
  const { command, args } = runScript(`${fixtures}/leave-child.ts`);
  const result = await runToEnd(command, args, { cwd: repoRoot, timeoutMs: 15_000 });
  const child = Number(result.stdout.trim());
  try {
    assert.equal(result.code, 0, result.stderr);
    assert.ok(isAlive(child), "the child outlives the script that started it");
  } finally {
    if (child > 0) process.kill(-child, "SIGKILL");
  }
});

test("platform: the child's environment is exactly the one given", async () => {
  const child = spawnChild("env", [], { env: { ONLY_THIS: "1", PATH: "/usr/bin:/bin" } });
  const lines = (await within(5_000, "env's output", readAll(child.stdout))).trim().split("\n").sort();
  assert.deepEqual(lines, ["ONLY_THIS=1", "PATH=/usr/bin:/bin"]);
  await within(5_000, "the exit", child.exited);
});

test("platform: cwd is applied", async () => {
  const child = spawnChild("pwd", [], { env, cwd: "/tmp" });
  assert.equal((await within(5_000, "pwd's output", readAll(child.stdout))).trim(), "/tmp");
  await within(5_000, "the exit", child.exited);
});

test("platform: a command that does not exist throws one clear error naming the PATH searched", () => {
  assert.throws(() => platform.spawn("no-such-command-xyz", [], { env }), {
    name: "NotFound",
    message: "Cannot start 'no-such-command-xyz': command not found on PATH '/usr/bin:/bin'",
  });
  assert.throws(() => platform.spawn("no-such-command-xyz", [], { env: {} }), {
    name: "NotFound",
    message: "Cannot start 'no-such-command-xyz': command not found (no PATH was set)",
  });
  assert.throws(() => platform.spawn("/no/such/dir/server", [], { env }), {
    name: "NotFound",
    message: "Cannot start '/no/such/dir/server': command not found",
  });
});

test("platform: a command that cannot start for another reason is not taken for one not found, and is said in words", async () => {
  const dir = mkdtempSync(`${tmpdir()}/workbench-spawn-`);
  try {
    writeFileSync(`${dir}/not-executable`, "#!/bin/sh\n", { mode: 0o644 });
    assert.throws(() => platform.spawn(`${dir}/not-executable`, [], { env }), (error: Error) => {
      assert.notEqual(error.name, "NotFound");
      assert.equal(
        error.message,
        `Cannot start '${dir}/not-executable': permission denied: it is not executable (chmod +x '${dir}/not-executable'), ` +
          "or a folder on its path or the server's cwd cannot be entered",
      );
      return true;
    });
    // Said in words, not as EACCES or ENOEXEC (issue 41).
    mkdirSync(`${dir}/folder`);
    assert.throws(() => platform.spawn(`${dir}/folder`, [], { env }), {
      message: `Cannot start '${dir}/folder': it is a directory, not a program: name the program inside it`,
    });
    // Bun refuses a file that is neither a binary nor a '#!' script; Deno hands it to sh, as execvp does.
    writeFileSync(`${dir}/text`, "hello\n", { mode: 0o755 });
    let child;
    try {
      child = platform.spawn(`${dir}/text`, [], { env });
    } catch (error) {
      assert.match((error as Error).message, /^Cannot start '.*\/text': it is not a program this system can run: neither a binary for this machine nor a script that starts with '#!'/);
    }
    if (child) {
      void child.stdout.cancel();
      void child.stderr.cancel();
      await within(5_000, "the exit", child.exited);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("platform: parentAlive() is true while the process that started us runs", () => {
  assert.equal(platform.parentAlive(), true);
});

test("platform: parentAlive() turns false once the process that started us has gone", async () => {
  const { command, args } = runScript(`${fixtures}/parent-alive.ts`);
  // The shell is the script's parent; killing it re-parents the script.
  const shell = spawn("sh", ["-c", '"$@" & wait', "sh", command, ...args], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let errors = "";
  shell.stdout.setEncoding("utf8").on("data", (text: string) => (output += text));
  shell.stderr.setEncoding("utf8").on("data", (text: string) => (errors += text));
  const closed = new Promise((resolve) => shell.on("close", resolve));
  let script = 0;
  try {
    // Both streams, so that a script that cannot start shows why.
    await untilMatch(15_000, () => output + errors, /^ready (\d+) true$/m);
    script = Number(/^ready (\d+)/m.exec(output)![1]);
    shell.kill("SIGKILL");
    await within(10_000, "the script's verdict", closed);
    assert.match(output, /^parentAlive false$/m, errors);
  } finally {
    shell.kill("SIGKILL");
    if (script > 0 && isAlive(script)) process.kill(script, "SIGKILL");
  }
});

test("platform: onSignal ignores a signal the OS lacks", () => {
  // Linux has no SIGINFO (a BSD signal), as Windows has no SIGHUP.
  assert.doesNotThrow(() => platform.onSignal("SIGINFO" as never, () => {}));
});

test("platform: readTextFile reads UTF-8 and rejects for a missing file with name NotFound", async () => {
  const text = await platform.readTextFile(`${repoRoot}/package.json`);
  assert.match(text, /"name": "mcp-workbench"/);
  await assert.rejects(platform.readTextFile("/no/such/file.json"), { name: "NotFound", code: "ENOENT" });
});

test("platform: args, cwd and env are the process's own; onSignal handlers receive SIGHUP, SIGINT and SIGTERM", async () => {
  const { command, args } = runScript(`${fixtures}/report.ts`, ["--config", "a b.json"]);
  const child = spawn(command, args, {
    cwd: "/tmp",
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", WB_PROBE: "probe value" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let output = "";
  child.stderr.setEncoding("utf8").on("data", (text: string) => (output += text));
  const closed = new Promise<[number | null, string | null]>((resolve) => child.on("close", (code, signal) => resolve([code, signal])));
  try {
    await untilMatch(15_000, () => output, /^\{.*\}$/m);
    assert.deepEqual(JSON.parse(/^\{.*\}$/m.exec(output)![0]), { args: ["--config", "a b.json"], cwd: "/tmp", probe: "probe value" });
    for (const signal of ["SIGHUP", "SIGINT", "SIGTERM"] as const) {
      process.kill(child.pid!, signal);
      await untilMatch(10_000, () => output, new RegExp(`^signal ${signal}$`, "m"));
    }
    assert.deepEqual(await within(10_000, "the exit", closed), [0, null], output);
  } finally {
    child.kill("SIGKILL");
  }
});

test("platform: makeDirectory creates missing parents and accepts one that exists", async () => {
  const dir = mkdtempSync(`${tmpdir()}/workbench-platform-`);
  try {
    await platform.makeDirectory(`${dir}/a/b/c`);
    await platform.makeDirectory(`${dir}/a/b/c`);
    assert.deepEqual(readdirSync(`${dir}/a/b`), ["c"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("platform: removeFile removes a file, and one that is not there is fine", async () => {
  const dir = mkdtempSync(`${tmpdir()}/workbench-platform-`);
  try {
    writeFileSync(`${dir}/f.json`, "x");
    await platform.removeFile(`${dir}/f.json`);
    assert.equal(existsSync(`${dir}/f.json`), false);
    await platform.removeFile(`${dir}/f.json`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("platform: writeTextFile writes UTF-8, replaces the file and leaves no temporary file", async () => {
  const dir = mkdtempSync(`${tmpdir()}/workbench-platform-`);
  try {
    writeFileSync(`${dir}/f.json`, "old and longer than the new text");
    await platform.writeTextFile(`${dir}/f.json`, "wörld ✓");
    assert.equal(readFileSync(`${dir}/f.json`, "utf8"), "wörld ✓");
    assert.equal(await platform.readTextFile(`${dir}/f.json`), "wörld ✓");
    assert.deepEqual(readdirSync(dir), ["f.json"]);
    await assert.rejects(platform.writeTextFile(`${dir}/missing/f.json`, "x"));
    mkdirSync(`${dir}/a-directory`);
    await assert.rejects(platform.writeTextFile(`${dir}/a-directory`, "x"), "a directory is not replaced");
    assert.deepEqual(readdirSync(dir).sort(), ["a-directory", "f.json"], "a failed write leaves nothing behind");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("platform: os names the operating system as the cache location needs it", () => {
  assert.equal(platform.os, process.platform === "win32" ? "windows" : process.platform);
  assert.equal(platform.windows, platform.os === "windows");
});

test("platform: createFile makes missing folders, refuses an existing file unless told to overwrite", async () => {
  const dir = mkdtempSync(`${tmpdir()}/workbench-create-`);
  try {
    const path = `${dir}/a/b/file.json`;
    await platform.createFile(path, "first ü\n", { overwrite: false });
    assert.equal(readFileSync(path, "utf8"), "first ü\n");
    await assert.rejects(platform.createFile(path, "second", { overwrite: false }), { name: "AlreadyExists" });
    assert.equal(readFileSync(path, "utf8"), "first ü\n");
    await platform.createFile(path, "second", { overwrite: true });
    assert.equal(readFileSync(path, "utf8"), "second");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("platform: appendPrivateFile creates a file with mode 0600, appends to it, and needs its folder", async () => {
  const dir = mkdtempSync(`${tmpdir()}/workbench-append-`);
  try {
    const path = `${dir}/audit.jsonl`;
    await platform.appendPrivateFile(path, "one ü\n");
    await Promise.all([platform.appendPrivateFile(path, "two\n"), platform.appendPrivateFile(path, "three\n")]);
    assert.deepEqual(readFileSync(path, "utf8").split("\n").sort(), ["", "one ü", "three", "two"]);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    await assert.rejects(platform.appendPrivateFile(`${dir}/missing/audit.jsonl`, "x\n"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("platform: sha256Hex, where the runtime has one, gives WebCrypto's digest around the padding edges, for multi-byte UTF-8 and lone surrogates", async () => {
  // Bun's adapter has it; Deno's has none (its hashes stay in plain script, src/cache/sha256.ts).
  assert.equal(typeof platform.sha256Hex, runtimeName === "bun" ? "function" : "undefined");
  if (!platform.sha256Hex) return;
  for (const length of [0, 1, 55, 56, 64, 119, 1_000, 70_000]) {
    // A lone surrogate is hashed as TextEncoder writes it (U+FFFD), as src/cache/sha256.ts does.
    for (const unit of ["a", "é", "😀", "\ud800", "\udc00", "\udc00\ud800", "\ud83dx"]) {
      const text = unit.repeat(length);
      const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
      const expected = Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
      assert.equal(platform.sha256Hex(text), expected, `${length} x ${unit}`);
    }
  }
});

test("platform: stderrIsTerminal, stdinIsTerminal and selfCommand describe this process", () => {
  assert.equal(typeof platform.stderrIsTerminal(), "boolean");
  assert.equal(typeof platform.stdinIsTerminal(), "boolean");
  const self = platform.selfCommand();
  assert.ok(self.command.startsWith("/"), self.command);
  assert.ok(existsSync(self.command), self.command);
  // Run from source (as tests are), the runtime needs the script: the last argument, absolute.
  assert.ok(self.args.at(-1)?.startsWith("/"), JSON.stringify(self.args));
});

test(`platform contract (${runtimeName}): serve answers on 127.0.0.1 with the handler until closed`, async () => {
  const server = await platform.serve((request) => new Response(`got ${new URL(request.url).pathname}`));
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const response = await within(10_000, "the loopback answer", fetch(`${server.url}/callback?code=1`));
  assert.equal(await response.text(), "got /callback");
  await within(10_000, "close", server.close());
  await assert.rejects(fetch(`${server.url}/again`));
});

test(`platform contract (${runtimeName}): serve takes the port asked for when it is free, another when it is taken`, async () => {
  const handler = () => new Response("ok");
  const first = await platform.serve(handler);
  const port = Number(new URL(first.url).port);
  await within(10_000, "close", first.close());
  const again = await platform.serve(handler, port);
  try {
    assert.equal(again.url, `http://127.0.0.1:${port}`, "the freed port is taken again");
    const other = await platform.serve(handler, port);
    assert.notEqual(other.url, again.url, "a taken port gives another");
    assert.equal(await (await within(10_000, "the other answer", fetch(`${other.url}/x`))).text(), "ok");
    await within(10_000, "close", other.close());
  } finally {
    await within(10_000, "close", again.close());
  }
});

test(`platform contract (${runtimeName}): writePrivateFile creates folders 0700 and files 0600, replacing atomically`, async () => {
  const { mkdtempSync, readdirSync, statSync, rmSync } = await import("node:fs");
  const root = mkdtempSync(`${(await import("node:os")).tmpdir()}/workbench-private-`);
  try {
    const path = `${root}/auth/nested/server.json`;
    await platform.writePrivateFile(path, "one");
    await platform.writePrivateFile(path, "two");
    assert.equal(readFileSync(path, "utf8"), "two");
    if (process.platform !== "win32") {
      assert.equal(statSync(path).mode & 0o777, 0o600);
      assert.equal(statSync(`${root}/auth/nested`).mode & 0o777, 0o700);
    }
    assert.deepEqual(readdirSync(`${root}/auth/nested`), ["server.json"], "no temporary file left behind");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test(`platform contract (${runtimeName}): os names this system`, () => {
  const expected = { win32: "windows", darwin: "darwin", linux: "linux" }[process.platform as string] ?? "other";
  assert.equal(platform.os, expected);
});

test(`platform contract (${runtimeName}): listen serves on the host and a free port, keeps a stream quiet for 16 s open, and closes`, async () => {
  const encoder = new TextEncoder();
  const listener = await platform.listen((request) => {
    if (new URL(request.url).pathname !== "/quiet") return Promise.resolve(new Response(`got ${request.method}`));
    // A stream quiet for 16 s: Bun cuts a connection idle for 10 s (checked coarsely, so up to about 14) unless told not to.
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(encoder.encode("first "));
        await delay(16_000);
        controller.enqueue(encoder.encode("last"));
        controller.close();
      },
    });
    return Promise.resolve(new Response(body));
  }, "127.0.0.1", 0);
  try {
    assert.equal(listener.hostname, "127.0.0.1");
    assert.ok(listener.port > 0);
    const base = `http://127.0.0.1:${listener.port}`;
    assert.equal(await (await within(10_000, "an answer", fetch(`${base}/mcp`, { method: "POST", body: "{}" }))).text(), "got POST");
    const quiet = await within(10_000, "the quiet stream's head", fetch(`${base}/quiet`));
    assert.equal(await within(30_000, "the quiet stream", quiet.text()), "first last");
  } finally {
    await within(10_000, "close", listener.close());
  }
  await assert.rejects(fetch(`http://127.0.0.1:${listener.port}/mcp`));
});
