/** Remote servers over loopback: Streamable HTTP, SSE, headers, lifecycle and secrets. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { errorText, firstProgress, fx, okText, opened, openToolbox, sleep, toolsOf, useTool } from "../helpers/toolbox.ts";
import type { CallToolResult } from "../helpers/sdk.ts";
import { type Session, withWorkbench } from "../helpers/workbench.ts";
import { type HttpFixture, startEverythingHttp, startHttpFixture } from "../helpers/http-fixture.ts";

const ERR = "Error executing tool";
const box = (servers: Record<string, unknown>) => ({ toolboxes: { dev: { description: "d", mcpServers: servers } } });
const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

async function withFixture<T>(env: Record<string, string>, fn: (fixture: HttpFixture) => Promise<T>): Promise<T> {
  const fixture = await startHttpFixture(env);
  try {
    return await fn(fixture);
  } finally {
    await fixture.stop();
  }
}

/** Polls a tool until it gives `expected`, for effects that reach the server a little later. */
async function eventually(session: Session, server: string, tool: string, expected: string): Promise<void> {
  let last = "";
  for (let attempt = 0; attempt < 50; attempt++) {
    last = okText(await useTool(session, "dev", server, tool));
    if (last === expected) return;
    await sleep(100);
  }
  assert.equal(last, expected);
}

test("remote: a toolbox mixing stdio, Streamable HTTP, SSE and a url without type", async () => {
  await withFixture({ FIXTURE_LABEL: "H" }, async (http) => {
    await withFixture({ FIXTURE_LABEL: "S", FIXTURE_SSE_ONLY: "1" }, async (sse) => {
      const config = box({
        local: fx("L"),
        http: { type: "http", url: http.url("/mcp") },
        sse: { type: "sse", url: sse.url("/sse") },
        auto: { url: sse.url("/sse") },
        autoHttp: { url: http.url("/mcp") },
      });
      await withWorkbench(config, async (session) => {
        const result = opened(await openToolbox(session, "dev"));
        assert.equal(result.servers_connected, 5, JSON.stringify(result._errors));
        assert.ok(toolsOf(result, "http").includes("echo"));
        assert.equal(okText(await useTool(session, "dev", "local", "echo", { text: "a" })), "L: a");
        assert.equal(okText(await useTool(session, "dev", "http", "echo", { text: "b" })), "H: b");
        assert.equal(okText(await useTool(session, "dev", "sse", "echo", { text: "c" })), "S: c");
        assert.equal(okText(await useTool(session, "dev", "auto", "echo", { text: "d" })), "S: d");
        assert.equal(okText(await useTool(session, "dev", "autoHttp", "echo", { text: "e" })), "H: e");
        assert.match(session.stderr(), /\[dev\/auto\] no Streamable HTTP here \(the first POST failed\); trying SSE/);
      });
    });
  });
});

test("remote: server-everything over Streamable HTTP and over SSE", async () => {
  const streamable = await startEverythingHttp("streamableHttp");
  const sse = await startEverythingHttp("sse");
  try {
    const config = box({ streamable: { type: "http", url: streamable.url("/mcp") }, sse: { type: "sse", url: sse.url("/sse") } });
    await withWorkbench(config, async (session) => {
      const result = opened(await openToolbox(session, "dev"));
      assert.equal(result.servers_connected, 2, JSON.stringify(result._errors));
      for (const server of ["streamable", "sse"]) {
        const text = okText(await useTool(session, "dev", server, "echo", { message: "hi" }));
        assert.match(text, /hi/);
      }
    });
  } finally {
    await streamable.stop();
    await sse.stop();
  }
});

const TOKEN = "tok-9f8e7d6c5b4a";
const API_KEY = "key-0a1b2c3d4e5f";
const QUERY_SECRET = "q-5ecret-77";
const PASSWORD = "pw-hunter22";

test("remote: headers with ${VAR} go with every request, and no secret shows in any output", async () => {
  await withFixture({}, async (fixture) => {
    for (const type of ["http", "sse"] as const) {
      const path = type === "http" ? "/mcp" : "/sse";
      const config = box({
        remote: {
          type,
          url: `http://user:${PASSWORD}@127.0.0.1:${fixture.port}${path}?key=\${QUERY_KEY}`,
          headers: { Authorization: "Bearer ${TOKEN}", "X-Api-Key": "${API_KEY}" },
        },
        down: { url: `http://127.0.0.1:1/mcp?key=${QUERY_SECRET}`, headers: { "X-Api-Key": "${API_KEY}" } },
        leaky: {
          type,
          url: `http://user:${PASSWORD}@127.0.0.1:${fixture.port}/leaky?key=\${QUERY_KEY}`,
          headers: { Authorization: "Bearer ${TOKEN}", "X-Api-Key": "${API_KEY}" },
        },
      });
      const outputs: string[] = [];
      await withWorkbench(config, async (session) => {
        const result = await openToolbox(session, "dev");
        outputs.push(JSON.stringify(result));
        const value = opened(result);
        assert.equal(value.servers_connected, 1);
        assert.match(value._errors![0], /^Failed to connect to server 'down' in toolbox 'dev': /);
        // Over Streamable HTTP the SDK quotes the body of the 403, which repeats every secret.
        if (type === "http") assert.match(value._errors![1], /^Failed to connect to server 'leaky' in toolbox 'dev': .*\*\*\*/);
        for (const header of ["Authorization", "X-Api-Key"]) {
          const expected = header === "Authorization" ? `Bearer ${TOKEN}` : API_KEY;
          const digests = JSON.parse(okText(await useTool(session, "dev", "remote", "headers", { name: header }))) as string[];
          assert.ok(digests.length >= 2, `${type}: ${digests.length} requests`);
          assert.deepEqual(new Set(digests), new Set([sha256(expected)]), `${type}: ${header} on every request`);
        }
        outputs.push(JSON.stringify(await useTool(session, "dev", "down", "echo", { text: "x" })));
        outputs.push(JSON.stringify(await useTool(session, "dev", "leaky", "echo", { text: "x" })));
        outputs.push(JSON.stringify(await useTool(session, "dev", "remote", "nope")));
        outputs.push(session.stderr());
      }, { TOKEN, API_KEY, QUERY_KEY: QUERY_SECRET });
      const all = outputs.join("\n");
      for (const secret of [TOKEN, API_KEY, QUERY_SECRET, PASSWORD]) assert.ok(!all.includes(secret), `${type}: ${secret} leaked:\n${all}`);
    }
  });
});

test("remote: a server that is down is listed in _errors; the others work", async () => {
  await withFixture({}, async (fixture) => {
    const config = box({ up: { type: "http", url: fixture.url() }, down: { type: "http", url: "http://127.0.0.1:1/mcp?key=down-secret-1" } });
    await withWorkbench(config, async (session) => {
      const value = opened(await openToolbox(session, "dev"));
      assert.equal(value.servers_connected, 1);
      assert.equal(value._errors?.length, 1);
      assert.match(value._errors![0], /^Failed to connect to server 'down' in toolbox 'dev': cannot reach the server at http:\/\/127\.0\.0\.1:1\/mcp\?key=\*\*\*: \S/);
      assert.ok(!value._errors![0].includes("down-secret-1"));
      assert.equal(okText(await useTool(session, "dev", "up", "echo", { text: "ok" })), "remote: ok");
    });
  });
});

test("remote: the server restarted between two calls: the next call goes through on a new session", async () => {
  const first = await startHttpFixture({ FIXTURE_LABEL: "one" });
  const { port } = first;
  let second: HttpFixture | undefined;
  try {
    // The label is in the tools' descriptions: pins would withhold the new server's (pins.test.ts covers that).
    await withWorkbench(box({ r: { type: "http", url: first.url(), pin: false } }), async (session) => {
      opened(await openToolbox(session, "dev"));
      assert.equal(okText(await useTool(session, "dev", "r", "echo", { text: "1" })), "one: 1");
      await first.stop();
      second = await startHttpFixture({ FIXTURE_LABEL: "two", PORT: String(port) });
      assert.equal(okText(await useTool(session, "dev", "r", "echo", { text: "2" })), "two: 2");
    });
  } finally {
    await first.stop();
    await second?.stop();
  }
});

test("remote: an expired session (404) is initialized again, once, transparently", async () => {
  await withFixture({}, async (fixture) => {
    await withWorkbench(box({ r: { type: "http", url: fixture.url() } }), async (session) => {
      opened(await openToolbox(session, "dev"));
      assert.equal(okText(await useTool(session, "dev", "r", "expire")), "expired");
      await sleep(50);
      assert.equal(okText(await useTool(session, "dev", "r", "echo", { text: "again" })), "remote: again");
      assert.equal(okText(await useTool(session, "dev", "r", "expire")), "expired");
      await sleep(50);
      assert.equal(okText(await useTool(session, "dev", "r", "echo", { text: "and again" })), "remote: and again");
    });
  });
});

test("remote: a server gone during a call fails it at once; the next call after it is back reconnects", async () => {
  const first = await startHttpFixture({ FIXTURE_LABEL: "one" });
  let second: HttpFixture | undefined;
  try {
    // The label is in the tools' descriptions: pins would withhold the new server's (pins.test.ts covers that).
    await withWorkbench(box({ r: { type: "http", url: first.url(), pin: false } }), async (session) => {
      opened(await openToolbox(session, "dev"));
      const started = Date.now();
      const sleeping = firstProgress("the sleep");
      const pending = session.client.callTool(
        { name: "use_tool", arguments: { tool: { toolbox: "dev", server: "r", name: "sleep" }, arguments: { ms: 20_000 } } },
        undefined,
        { timeout: 30_000, onprogress: sleeping.onprogress },
      ) as Promise<CallToolResult>;
      // Stopped once the server has the call: in flight, not still on its way.
      await sleeping.begun();
      await first.stop();
      const text = errorText(await pending);
      assert.match(text, /^Error executing tool 'sleep' in server 'r' \(toolbox 'dev'\): connection to the server lost/);
      assert.ok(Date.now() - started < 10_000, "failed at once, not at a timeout");
      second = await startHttpFixture({ FIXTURE_LABEL: "two", PORT: String(first.port) });
      assert.equal(okText(await useTool(session, "dev", "r", "echo", { text: "back" })), "two: back");
    });
  } finally {
    await first.stop();
    await second?.stop();
  }
});

test("remote: a call over callTimeoutMs fails naming the limit, and the server sees the cancellation", async () => {
  await withFixture({}, async (fixture) => {
    await withWorkbench(box({ r: { type: "http", url: fixture.url(), callTimeoutMs: 400 } }), async (session) => {
      opened(await openToolbox(session, "dev"));
      assert.equal(
        errorText(await useTool(session, "dev", "r", "sleep", { ms: 5_000 })),
        `${ERR} 'sleep' in server 'r' (toolbox 'dev'): no answer within the call timeout of 400 ms (callTimeoutMs)`,
      );
      await eventually(session, "r", "cancellations", "1");
    });
  });
});

test("remote: a cancelled use_tool cancels the downstream request; progress resets the timeout", async () => {
  await withFixture({}, async (fixture) => {
    await withWorkbench(box({ r: { type: "http", url: fixture.url(), callTimeoutMs: 1_500 } }), async (session) => {
      opened(await openToolbox(session, "dev"));
      const controller = new AbortController();
      const sleeping = firstProgress("the sleep");
      const call = session.client.callTool(
        { name: "use_tool", arguments: { tool: { toolbox: "dev", server: "r", name: "sleep" }, arguments: { ms: 20_000 } } },
        undefined,
        { signal: controller.signal, onprogress: sleeping.onprogress },
      );
      // Cancelled once the server has the call: one cancelled before it got there never reaches it.
      await sleeping.begun();
      controller.abort("changed my mind");
      await assert.rejects(call);
      await eventually(session, "r", "cancellations", "1");
      // Six steps of 500 ms take longer than callTimeoutMs, but each step is progress.
      assert.equal(okText(await useTool(session, "dev", "r", "progress", { steps: 6, ms: 500 })), "remote made 6 steps");
    });
  });
});

test("remote: a message over maxMessageBytes fails the call naming the limit; the next call reconnects", async () => {
  await withFixture({}, async (fixture) => {
    await withWorkbench(box({ r: { type: "http", url: fixture.url(), maxMessageBytes: 20_000 } }), async (session) => {
      opened(await openToolbox(session, "dev"));
      assert.equal(okText(await useTool(session, "dev", "r", "blob", { bytes: 1_000 })).length, 1_000);
      assert.match(
        errorText(await useTool(session, "dev", "r", "blob", { bytes: 100_000 })),
        /^Error executing tool 'blob' in server 'r' \(toolbox 'dev'\): .*the server sent a message larger than 20000 bytes \(maxMessageBytes\)/,
      );
      assert.equal(okText(await useTool(session, "dev", "r", "echo", { text: "after" })), "remote: after");
    });
  });
});

test("remote: an HTTP error for one call fails that call with the server's answer; the next call works", async () => {
  await withFixture({}, async (fixture) => {
    await withWorkbench(box({ r: { type: "http", url: fixture.url() } }), async (session) => {
      opened(await openToolbox(session, "dev"));
      assert.equal(okText(await useTool(session, "dev", "r", "refuse_next")), "armed");
      const text = errorText(await useTool(session, "dev", "r", "echo", { text: "x" }));
      assert.match(text, /^Error executing tool 'echo' in server 'r' \(toolbox 'dev'\): .*busy, try later/);
      assert.equal(okText(await useTool(session, "dev", "r", "echo", { text: "y" })), "remote: y");
    });
  });
});

test("remote: a result nested deeper than 1000 levels fails the call and drops the connection; the next call reconnects", async () => {
  await withFixture({}, async (fixture) => {
    await withWorkbench(box({ r: { type: "http", url: fixture.url() } }), async (session) => {
      opened(await openToolbox(session, "dev"));
      assert.equal(okText(await useTool(session, "dev", "r", "deep", { levels: 900 })), "deep");
      assert.equal(
        errorText(await useTool(session, "dev", "r", "deep", { levels: 3_000 })),
        `${ERR} 'deep' in server 'r' (toolbox 'dev'): server sent a message nested deeper than 1000 levels`,
      );
      assert.equal(okText(await useTool(session, "dev", "r", "echo", { text: "after" })), "remote: after");
    });
  });
});
