import { test } from "node:test";
import assert from "node:assert/strict";
import { relayStderr, StderrTail } from "../../../src/downstream/links/stderr-relay.ts";
import { Redactor } from "../../../src/address/redact.ts";

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

test("stderr relay: every line is prefixed, lines split across chunks are joined, the last line is kept", async () => {
  let out = "";
  await relayStderr(streamOf("starting\nhalf of ", "a line\r\n\nno newline at the end"), "[dev/fs]", (text) => (out += text));
  assert.equal(out, "[dev/fs] starting\n[dev/fs] half of a line\n[dev/fs] no newline at the end\n");
});

test("stderr relay: a huge line is left out, saying so, and the next one still comes through", async () => {
  let out = "";
  await relayStderr(streamOf("x".repeat(100_000) + "\nafter\n"), "[a/b]", (text) => (out += text));
  assert.equal(out, "[a/b] (a line of 100000 bytes was left out)\n[a/b] after\n");
});

test("stderr tail: the last 3 non-blank lines without the prefix, at most 300 characters, latest kept", async () => {
  const tail = new StderrTail();
  await relayStderr(streamOf("one\n\n  two  \nthree\nError: Cannot find module '/x/server.js'\n"), "[a/b]", () => {}, tail);
  assert.equal(tail.text(), "two | three | Error: Cannot find module '/x/server.js'");
  assert.equal(tail.explain("server exited with code 1"), `server exited with code 1; its stderr ended with: ${tail.text()}`);
  const long = new StderrTail();
  long.push("a".repeat(200));
  long.push("b".repeat(200));
  assert.equal(long.text().length, 300);
  assert.equal(long.text(), `…${"a".repeat(96)} | ${"b".repeat(200)}`);
  assert.equal(new StderrTail().explain("timeout"), "timeout");
});

test("stderr relay: a stdio server's env values of 8 characters or more are masked in the lines and the tail", async () => {
  const redactor = Redactor.forEnv({ API_KEY: "sk-live-12345678", MODE: "debug", PORT: "8080" });
  const tail = new StderrTail();
  let out = "";
  await relayStderr(streamOf("key=sk-live-12345678 mode=debug port=8080\n"), "[a/b]", (text) => (out += text), tail, (line) => redactor.redact(line));
  assert.equal(out, "[a/b] key=*** mode=debug port=8080\n");
  assert.equal(tail.text(), "key=*** mode=debug port=8080");
});

/** What `node /srv/server.js` writes when the file is not there (Node.js 20). */
const NODE_MISSING_MODULE = `node:internal/modules/cjs/loader:1210
  throw err;
  ^

Error: Cannot find module '/srv/server.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)
    at Module._load (node:internal/modules/cjs/loader:1038:27)
    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2
`;

/** A Python traceback: the exception is its last line, after indented frames. */
const PYTHON_TRACEBACK = `Traceback (most recent call last):
  File "/srv/server.py", line 3, in <module>
    import mcp_missing
  File "/srv/helpers.py", line 9, in load
    raise KeyboardInterrupt
    ^^^^^^^^^^^^^^^^^^^^^^^
KeyboardInterrupt
`;

async function tailOf(text: string): Promise<StderrTail> {
  const tail = new StderrTail();
  await relayStderr(streamOf(text), "[a/b]", () => {}, tail);
  return tail;
}

test("stderr tail: the first line that says what failed comes first, then the last lines (Node's stack ends with its version)", async () => {
  const tail = await tailOf(NODE_MISSING_MODULE);
  assert.equal(tail.text(), "Error: Cannot find module '/srv/server.js' … requireStack: [] | Node.js v20.20.2");
  assert.equal(
    tail.explain("server exited with code 1 during initialization"),
    "server exited with code 1 during initialization; its stderr said: Error: Cannot find module '/srv/server.js' … " +
      "requireStack: [] | Node.js v20.20.2",
  );
});

test("stderr tail: Python's exception is the first line after a traceback's frames, whatever its name", async () => {
  const tail = await tailOf(`starting\n${PYTHON_TRACEBACK}`);
  assert.equal(tail.text(), "File \"/srv/helpers.py\", line 9, in load | raise KeyboardInterrupt | KeyboardInterrupt");
  const chained = await tailOf(`${PYTHON_TRACEBACK}\nDuring handling of the above exception, another exception occurred:\n\n${
    PYTHON_TRACEBACK.replace(/\nKeyboardInterrupt\n$/, "\nRuntimeError: shutting down\n")
  }`);
  assert.equal(chained.text(), "KeyboardInterrupt … raise KeyboardInterrupt | RuntimeError: shutting down");
});

test("stderr tail: error lines as runtimes word them; the first one of the last 100 lines counts", async () => {
  const cases: [string, string][] = [
    ["Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'x' imported from /srv/a.mjs", "node ESM"],
    ["TypeError: fetch failed", "node"],
    ['error: Module not found "file:///srv/server.ts".', "deno"],
    ["panic: runtime error: index out of range [3] with length 3", "go"],
    ["thread 'main' panicked at src/main.rs:2:5:", "rust"],
    ['Exception in thread "main" java.lang.IllegalStateException: no key', "java"],
    ["  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)", "python exception group"],
  ];
  for (const [line, who] of cases) {
    const tail = await tailOf(`${line}\nframe 1\nframe 2\nframe 3\n`);
    assert.equal(tail.text(), `${line.replace(/^ +/, "")} … frame 2 | frame 3`, who);
  }
  const ordinary = await tailOf("Warning: deprecated\nlistening\nErrors: 0\nready\n");
  assert.equal(ordinary.text(), "listening | Errors: 0 | ready");
  const old = await tailOf(`Error: long ago\n${Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n")}\n`);
  assert.equal(old.text(), "line 97 | line 98 | line 99");
});

test("stderr tail: with an error line first, the whole stays within 300 characters; the error keeps its start", async () => {
  const long = await tailOf(`Error: ${"e".repeat(400)}\nx\n${"a".repeat(200)}\n${"b".repeat(200)}\n`);
  assert.equal(long.text(), `Error: ${"e".repeat(192)}… … …${"b".repeat(96)}`);
  assert.equal(long.text().length, 300);
  // A line of megabytes is held by its two ends only: those are all a message can show.
  const huge = await tailOf(`Error: ${"e".repeat(10_000)}z\nx\ny\n${"c".repeat(10_000)}d\n`);
  assert.equal(huge.text(), `Error: ${"e".repeat(192)}… … …${"c".repeat(95)}d`);
});

/** What mcp-remote 0.1 writes for a remote server that refuses the connection (paths shortened, frames cut). */
const MCP_REMOTE_REFUSED = `[8151] Using callback port derived from the server URL: 41998
[8151] Discovering OAuth server configuration...
[8151] [8151] Connecting to remote server: http://127.0.0.1:39999/mcp
[8151] Using transport strategy: http-first
[8151] Connection error: TypeError: fetch failed
    at Object.processResponse (/n/undici/lib/web/fetch/index.js:237:16)
    at async StreamableHTTPClientTransport._send (file:///n/mcp-remote/dist/chunk-KJCT2FXL.js:31410:24) {
  [cause]: Error: connect ECONNREFUSED 127.0.0.1:39999
      at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1611:16) {
    errno: -111,
    code: 'ECONNREFUSED',
    syscall: 'connect',
    address: '127.0.0.1',
    port: 39999
  }
}
[8151] Fatal error: TypeError: fetch failed
    at Object.processResponse (/n/undici/lib/web/fetch/index.js:237:16) {
  [cause]: Error: connect ECONNREFUSED 127.0.0.1:39999
      at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1611:16) {
    errno: -111,
    port: 39999
  }
}
`;

test("stderr tail: a wrapper's (mcp-remote's) error is shown with its cause line, not the fields that end its dump", async () => {
  const tail = await tailOf(MCP_REMOTE_REFUSED);
  assert.equal(
    tail.explain("server exited with code 1 during initialization"),
    "server exited with code 1 during initialization; its stderr said: Connection error: TypeError: fetch failed … " +
      "[cause]: Error: connect ECONNREFUSED 127.0.0.1:39999",
  );
  const java = await tailOf(
    "Exception in thread \"main\" java.lang.RuntimeException: cannot start\n\tat Main.main(Main.java:3)\n" +
      "Caused by: java.net.ConnectException: Connection refused\n\tat Main.open(Main.java:9)\n\t... 1 more\n",
  );
  assert.equal(java.text(), "Exception in thread \"main\" java.lang.RuntimeException: cannot start … Caused by: java.net.ConnectException: Connection refused");
  // A log prefix is no cause: `[INFO] ready` is the line `ready`; an empty prefixed line is no line.
  assert.equal((await tailOf("[INFO] starting\n[12] [12] ready\n[12] \n")).text(), "starting | ready");
  // The cause goes with the error it follows, not with an earlier one; a chain shows its deepest cause.
  const later = await tailOf(`Error: optional config missing, using defaults\nlistening\n${MCP_REMOTE_REFUSED.replace("Connection error:", "Fatal error:")}`);
  assert.match(later.text(), /^Fatal error: TypeError: fetch failed … \[cause\]: Error: connect ECONNREFUSED/);
  const chain = await tailOf("Exception in thread \"main\" A: top\n\tat x\nCaused by: B: mid\n\tat y\nCaused by: C: root\n\tat z\n");
  assert.equal(chain.text(), "Exception in thread \"main\" A: top … Caused by: C: root");
  // A Python traceback behind a log prefix keeps its frames' indentation: the exception is the line after them.
  const python = await tailOf("[12] Traceback (most recent call last):\n[12]   File \"a.py\", line 3, in <module>\n[12]     f()\n[12] ValueError: bad\n[12] x\n[12] y\n[12] z\n");
  assert.equal(python.text(), "ValueError: bad … y | z");
  // Words around "error:" that say nothing failed are not an error line.
  assert.equal((await tailOf("Last error: none\nfirst\nlistening\nbye\n")).text(), "first | listening | bye");
});

/** What `npx -y` writes for a package that is not in the registry (npm 10 and 11; older npm says `npm ERR!`). */
const NPX_NOT_FOUND = `npm error code E404
npm error 404 Not Found - GET https://registry.example/@acme%2fno-such-server - Not found
npm error 404
npm error 404  '@acme/no-such-server@*' is not in this registry.
npm error 404
npm error 404 Note that you can also install from a
npm error 404 tarball, folder, http url, or git url.
npm error A complete log of this run can be found in: /home/me/.npm/_logs/2026-11-26T19_00_00_000Z-debug-0.log
`;

test("stderr tail: a launcher's failing line is shown, not its hints: npx, uvx, pipx, docker", async () => {
  const npx = await tailOf(NPX_NOT_FOUND);
  assert.equal(
    npx.explain("server exited with code 1 during initialization"),
    "server exited with code 1 during initialization; its stderr said: npm error 404 Not Found - GET https://registry.example/@acme%2fno-such-server - Not found | " +
      "npm error 404  '@acme/no-such-server@*' is not in this registry.",
  );
  assert.doesNotMatch(npx.text(), /tarball|complete log/);
  const old = await tailOf(NPX_NOT_FOUND.replaceAll("npm error", "npm ERR!"));
  assert.match(old.text(), /^npm ERR! 404 Not Found - GET /);
  const cases: [string, string][] = [
    [
      "  × No solution found when resolving tool dependencies:\n  ╰─▶ Because no-such-tool was not found in the package registry and you require no-such-tool, we can conclude that your requirements are unsatisfiable.\n",
      "× No solution found when resolving tool dependencies: | ╰─▶ Because no-such-tool was not found",
    ],
    ["Fatal error from pip prevented installation. Full pip output in file:\n    /tmp/x/pip.log\n\nNo matching distribution found for no-such-tool\n", "No matching distribution found for no-such-tool"],
    [
      "Unable to find image 'acme/none:latest' locally\ndocker: Error response from daemon: pull access denied for acme/none, repository does not exist.\nSee 'docker run --help'.\n",
      "Unable to find image 'acme/none:latest' locally | docker: Error response from daemon: pull access denied",
    ],
  ];
  for (const [text, shown] of cases) assert.ok((await tailOf(text)).text().startsWith(shown), `${shown}\n${(await tailOf(text)).text()}`);
});
