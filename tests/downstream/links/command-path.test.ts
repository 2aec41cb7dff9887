/**
 * Commands looked for as the user's shell finds them: the policy with injected pieces, and the
 * login shell asked for real (a fake SHELL script) through the current runtime's platform.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { platform } from "#platform";
import { DEFAULT_SETTINGS, type StdioServerConfig } from "../../../src/config/index.ts";
import { askLoginShell, CommandSearch, pathFromShellOutput, widerPaths } from "../../../src/downstream/links/command-path.ts";
import { ServerSession } from "../../../src/downstream/server-session.ts";
import { waitGone } from "../../helpers/procs.ts";

const notFound = (path: string) => Object.assign(new Error(`Cannot start 'npx': command not found on PATH '${path}'`), { name: "NotFound" });

/** A search whose login shell answers `login`, counting how often it is asked; lines said are kept. */
function search(login: string | undefined, options: { windows?: boolean } = {}) {
  const said: string[] = [];
  let asked = 0;
  const commandSearch = new CommandSearch({
    env: { HOME: "/home/me" },
    windows: options.windows ?? false,
    loginPath: () => (asked++, Promise.resolve(login)),
    notify: (line) => said.push(line),
  });
  return { commandSearch, said, asked: () => asked };
}

/** A spawn stand-in that finds `npx` only on a PATH with `folder`; it records each PATH tried. */
function startOnlyWith(folder: string) {
  const tried: string[] = [];
  const start = (env: Record<string, string>) => {
    tried.push(env.PATH);
    if (!env.PATH.split(":").includes(folder)) throw notFound(env.PATH);
    return `started with ${env.PATH}`;
  };
  return { start, tried };
}

test("command path: the login shell's PATH comes first, ours after it, then the usual folders, without repeats", () => {
  assert.deepEqual(widerPaths("/usr/bin:/bin", "/opt/homebrew/bin:/usr/bin:/bin", "/home/me"), [
    { path: "/opt/homebrew/bin:/usr/bin:/bin", source: "the login shell's PATH" },
    {
      path: "/opt/homebrew/bin:/usr/bin:/bin:/usr/local/bin:/home/me/.local/bin:/home/me/.volta/bin:/home/me/.bun/bin:/home/me/.deno/bin",
      source: "the PATH with the usual install folders added",
    },
  ]);
});

test("command path: without a login shell PATH, or one that adds nothing, only the usual folders are tried", () => {
  const usualOnly = [{ path: "/usr/bin:/opt/homebrew/bin:/usr/local/bin", source: "the PATH with the usual install folders added" }];
  assert.deepEqual(widerPaths("/usr/bin", undefined, undefined), usualOnly);
  assert.deepEqual(widerPaths("/usr/bin", "/usr/bin::", undefined), usualOnly);
  assert.deepEqual(widerPaths(undefined, undefined, "/home/me/").map((wider) => wider.path), [
    "/opt/homebrew/bin:/usr/local/bin:/home/me/.local/bin:/home/me/.volta/bin:/home/me/.bun/bin:/home/me/.deno/bin",
  ]);
});

test("command path: the PATH is read between the markers, whatever a profile prints around them", () => {
  const output = "Welcome to the machine\n__MCP_WORKBENCH_PATH__\n/opt/homebrew/bin:/usr/bin\n__MCP_WORKBENCH_PATH__\nbye\n";
  assert.equal(pathFromShellOutput(output), "/opt/homebrew/bin:/usr/bin");
  assert.equal(pathFromShellOutput("/usr/bin\n"), undefined);
  assert.equal(pathFromShellOutput("__MCP_WORKBENCH_PATH__\n/usr/bin\n"), undefined);
  assert.equal(pathFromShellOutput("__MCP_WORKBENCH_PATH__\n\n__MCP_WORKBENCH_PATH__\n"), undefined);
});

test("command path: a command found on our PATH starts at once, and no shell is asked", () => {
  const { commandSearch, said, asked } = search("/opt/homebrew/bin");
  const { start } = startOnlyWith("/usr/bin");
  assert.equal(commandSearch.start("npx", { PATH: "/usr/bin" }, {}, "[dev/fs]", start), "started with /usr/bin");
  assert.equal(asked(), 0);
  assert.deepEqual(said, []);
});

test("command path: a command found only on the login shell's PATH starts with it, and one line says so", async () => {
  const { commandSearch, said } = search("/opt/homebrew/bin:/usr/bin");
  const { start, tried } = startOnlyWith("/opt/homebrew/bin");
  const started = await commandSearch.start("npx", { PATH: "/usr/bin:/bin", HOME: "/home/me" }, {}, "[dev/fs]", start);
  assert.equal(started, "started with /opt/homebrew/bin:/usr/bin:/bin");
  assert.deepEqual(tried, ["/usr/bin:/bin", "/opt/homebrew/bin:/usr/bin:/bin"]);
  assert.deepEqual(said, [
    "[dev/fs] 'npx' is not on PATH '/usr/bin:/bin': found on the login shell's PATH '/opt/homebrew/bin:/usr/bin:/bin', which it runs with",
  ]);
});

test("command path: the usual folders find what the login shell's PATH lacks", async () => {
  const { commandSearch, said } = search(undefined);
  const { start } = startOnlyWith("/home/me/.volta/bin");
  const started = await commandSearch.start("npx", { PATH: "/usr/bin" }, {}, "[dev/fs]", start);
  assert.match(String(started), /^started with \/usr\/bin:\/opt\/homebrew\/bin:.*:\/home\/me\/\.volta\/bin:/);
  assert.equal(said.length, 1);
  assert.match(said[0], /found on the PATH with the usual install folders added '\/usr\/bin:\/opt\/homebrew\/bin:/);
});

test("command path: the login shell is asked once, however many servers look at the same time", async () => {
  const { commandSearch, asked } = search("/opt/homebrew/bin");
  const { start } = startOnlyWith("/opt/homebrew/bin");
  const all = await Promise.all([1, 2, 3].map(() => commandSearch.start("npx", { PATH: "/usr/bin" }, {}, "[x/y]", start)));
  assert.equal(all.length, 3);
  await commandSearch.start("npx", { PATH: "/usr/bin" }, {}, "[x/y]", start);
  assert.equal(asked(), 1);
});

test("command path: not found anywhere, the error names the widest PATH tried", async () => {
  const { commandSearch, said } = search("/opt/homebrew/bin");
  const { start } = startOnlyWith("/nowhere");
  await assert.rejects(Promise.resolve(commandSearch.start("npx", { PATH: "/usr/bin" }, {}, "[dev/fs]", start)), {
    name: "NotFound",
    message:
      "Cannot start 'npx': command not found on PATH '/opt/homebrew/bin:/usr/bin:/usr/local/bin:/home/me/.local/bin:/home/me/.volta/bin:/home/me/.bun/bin:/home/me/.deno/bin'",
  });
  assert.deepEqual(said, []);
});

test("command path: a server's own PATH, a command given by path, Windows and other failures are left as they are", () => {
  const { commandSearch, asked } = search("/opt/homebrew/bin");
  const { start } = startOnlyWith("/opt/homebrew/bin");
  const message = "Cannot start 'npx': command not found on PATH '/usr/bin'";
  assert.throws(() => commandSearch.start("npx", { PATH: "/usr/bin" }, { PATH: "/usr/bin" }, "[dev/fs]", start), { message });
  assert.throws(() => commandSearch.start("./npx", { PATH: "/usr/bin" }, {}, "[dev/fs]", start), { name: "NotFound" });
  const windows = search("/opt/homebrew/bin", { windows: true });
  assert.throws(() => windows.commandSearch.start("npx", { PATH: "/usr/bin" }, {}, "[dev/fs]", start), { message });
  const denied = () => {
    throw new Error("Cannot start 'npx': Permission denied");
  };
  assert.throws(() => commandSearch.start("npx", { PATH: "/usr/bin" }, {}, "[dev/fs]", denied), { message: "Cannot start 'npx': Permission denied" });
  assert.equal(asked() + windows.asked(), 0);
});

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const serverConfig = (command: string): StdioServerConfig => ({ ...DEFAULT_SETTINGS, command, args: [], env: {}, transport: "stdio" });

/** Ends a process this test started, if it is still there. */
function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Gone already.
  }
}

/** A fake login shell: prints noise, then runs the script with `folder` put before PATH. */
function fakeShell(dir: string, body: string): string {
  const path = `${dir}/fake-shell`;
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

test("command path: the login shell's PATH is asked of $SHELL -lc, noise and all", async () => {
  const dir = mkdtempSync(`${tmpdir()}/workbench-shell-`);
  try {
    const shell = fakeShell(dir, `echo "motd: have a nice day"\n[ "$1" = -lc ] || exit 9\nPATH="${dir}/bin:$PATH" exec /bin/sh -c "$2"`);
    assert.equal(await askLoginShell(platform.spawn, { SHELL: shell, PATH: "/usr/bin:/bin" }), `${dir}/bin:/usr/bin:/bin`);
    assert.equal(await askLoginShell(platform.spawn, { PATH: "/usr/bin:/bin" }), undefined, "no SHELL");
    assert.equal(await askLoginShell(platform.spawn, { SHELL: `${dir}/none`, PATH: "/usr/bin:/bin" }), undefined, "no such shell");
    const failing = fakeShell(dir, "echo oops; exit 1");
    assert.equal(await askLoginShell(platform.spawn, { SHELL: failing, PATH: "/usr/bin:/bin" }), undefined, "a shell that fails");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("command path: the PATH is taken as soon as it is printed, though the shell goes on; what it runs is ended", async () => {
  const dir = mkdtempSync(`${tmpdir()}/workbench-shell-`);
  try {
    const shell = fakeShell(dir, `echo $$ > '${dir}/pid'\nPATH='${dir}/bin:/usr/bin:/bin' /bin/sh -c "$2"\nexec sleep 30`);
    const started = performance.now();
    assert.equal(await askLoginShell(platform.spawn, { SHELL: shell, PATH: "/usr/bin:/bin" }, 10_000), `${dir}/bin:/usr/bin:/bin`);
    const took = performance.now() - started;
    assert.ok(took < 8_000, `took ${took} ms`);
    const pid = Number(readFileSync(`${dir}/pid`, "utf8"));
    assert.deepEqual(await waitGone([pid], 5_000), [], "the shell was ended");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("command path: a login shell that hangs gives up after the timeout, and it is killed", async () => {
  const dir = mkdtempSync(`${tmpdir()}/workbench-shell-`);
  try {
    const shell = fakeShell(dir, `echo $$ > "${dir}/pid"\nexec sleep 30`);
    const started = performance.now();
    assert.equal(await askLoginShell(platform.spawn, { SHELL: shell, PATH: "/usr/bin:/bin" }, 1_000), undefined);
    const took = performance.now() - started;
    assert.ok(took >= 900 && took < 10_000, `took ${took} ms`);
    assert.ok(existsSync(`${dir}/pid`), "the shell ran");
    const pid = Number(readFileSync(`${dir}/pid`, "utf8"));
    assert.deepEqual(await waitGone([pid], 5_000), [], "the hung shell is killed");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("command path: a connection closed while its command is being looked for ends the child it then starts", async () => {
  const dir = mkdtempSync(`${tmpdir()}/workbench-shell-`);
  const pids: number[] = [];
  try {
    mkdirSync(`${dir}/bin`);
    writeFileSync(`${dir}/bin/late-server`, "#!/bin/sh\nexec sleep 30\n", { mode: 0o755 });
    let answer!: (path: string) => void;
    const commandSearch = new CommandSearch({
      env: {},
      windows: false,
      loginPath: () => new Promise((resolve) => (answer = resolve)),
      notify: () => {},
    });
    const spawn: typeof platform.spawn = (command, args, options) => {
      const child = platform.spawn(command, args, options);
      pids.push(child.pid);
      return child;
    };
    const host = { spawn, env: { PATH: "/usr/bin:/bin" }, windows: false, writeStderr: () => {}, commandSearch };
    const connection = ServerSession.open({ toolbox: "dev", server: "late", config: serverConfig("late-server") }, host);
    const closed = connection.close({ graceful: false });
    await delay(50);
    answer(`${dir}/bin:/usr/bin:/bin`);
    await closed;
    for (let wait = 0; wait < 100 && pids.length === 0; wait++) await delay(50);
    assert.equal(pids.length, 1, "the child was started once the command was found");
    assert.deepEqual(await waitGone(pids, 5_000), [], "the child started after the close was ended");
  } finally {
    for (const pid of pids) killQuietly(pid);
    rmSync(dir, { recursive: true, force: true });
  }
});
