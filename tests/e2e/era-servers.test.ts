/**
 * The workbench in front of servers of both eras: the SDK v2 fixture speaking 2026-07-28 only
 * (stdio), both eras (stdio, probed to 2026-07-28) and over Streamable HTTP, and our SDK 1.32
 * fixture (2025-11-25). The SDK 1.32 client in front sees the same workbench for all of them:
 * tools listed, calls answered, elicitations asked of it, cancellations passed on; a legacy
 * server is probed with server/discover once, and not again at the next start (the cache).
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { Client, ElicitRequestSchema } from "../helpers/sdk.ts";
import { removeTempDirs, startWorkbench, tempDir } from "../helpers/workbench.ts";
import { startV2Http } from "../helpers/http-fixture.ts";
import { fixture, runScript } from "../helpers/runtime.ts";
import { CALL_TIMEOUT_MS, eventually, firstProgress, fx, okText, opened, openToolbox, toolsOf, useTool } from "../helpers/toolbox.ts";
import type { Session } from "../helpers/workbench.ts";

after(removeTempDirs);

const V2_TOOLS = ["confirm", "echo", "stats", "wait", "waits"];

function elicitingClient(asked: string[]): Client {
  const client = new Client({ name: "era-test", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(String(request.params.message));
    return { action: "accept", content: { name: "Ada" } };
  });
  return client;
}

/**
 * A use_tool `wait` cancelled by the client once the server has it (its count of waits begun, or
 * for the fixture's sleep its first progress): the workbench passes the cancellation on.
 */
async function cancelledWait(session: Session, server: string, tool: string, args: Record<string, unknown>): Promise<void> {
  const controller = new AbortController();
  const counted = tool === "wait";
  const begun = async () => Number(okText(await useTool(session, "era", server, "waits", {})));
  const before = counted ? await begun() : 0;
  const waits = firstProgress(`${server}'s ${tool}`);
  const call = session.client.callTool(
    { name: "use_tool", arguments: { tool: { toolbox: "era", server, name: tool }, arguments: args } },
    undefined,
    { signal: controller.signal, timeout: CALL_TIMEOUT_MS, ...(!counted && { onprogress: waits.onprogress }) },
  );
  if (counted) await eventually(`${server}'s wait begun`, begun, (count) => count > before);
  else await waits.begun();
  controller.abort("enough");
  await assert.rejects(call);
}

/** Polls a tool until its text passes `done` (the cancellation reaches the server a moment later). */
async function eventuallyText(session: Session, server: string, tool: string, done: (text: string) => boolean): Promise<string> {
  let text = "";
  for (let tries = 0; tries < 40; tries++) {
    text = okText(await useTool(session, "era", server, tool, {}));
    if (done(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return text;
}

test("era matrix: 2026-07-28 and 2025-11-25 servers behind one workbench", async (t) => {
  // Served by Bun under both runtimes: a handler under Deno.serve never hears of a cancelled POST.
  const http = await startV2Http(true);
  const cache = `${tempDir()}/cache`;
  const methods = `${tempDir()}/methods.log`;
  const v2 = (era: string) => runScript(fixture("v2-server.ts"), ["--era", era]);
  const config = {
    toolboxes: {
      era: {
        mcpServers: {
          modern: v2("2026"),
          dual: v2("dual"),
          remote: { type: "http", url: http.url("/") },
          legacy: fx("legacy", {}, { FIXTURE_METHOD_LOG: methods }),
          // Exits when asked server/discover: started again and initialized.
          strict: { ...runScript(fixture("line-server.ts")), env: { LINE_EXIT_ON_UNKNOWN: "1" } },
        },
      },
    },
  };
  const asked: string[] = [];
  const session = await startWorkbench(config, { WORKBENCH_CACHE_DIR: cache }, elicitingClient(asked));
  try {
    const era = opened(await openToolbox(session, "era"));
    assert.equal(era.servers_connected, 5, JSON.stringify(era._errors ?? era));

    await t.test("open_toolbox lists every server's tools", () => {
      for (const server of ["modern", "dual", "remote"]) assert.deepEqual(toolsOf(era, server).sort(), V2_TOOLS, server);
      assert.ok(toolsOf(era, "legacy").includes("echo"));
    });

    await t.test("each server answers in its era", async () => {
      for (const server of ["modern", "dual", "remote"]) {
        assert.equal(okText(await useTool(session, "era", server, "echo", { text: "hi" })), "2026-07-28: hi", server);
      }
      assert.equal(okText(await useTool(session, "era", "legacy", "echo", { text: "hi" })), "legacy: hi");
      assert.equal(okText(await useTool(session, "era", "strict", "echo", { text: "hi" })), "hi");
    });

    await t.test("an input_required result becomes an elicitation of the client, and the answer goes back", async () => {
      for (const server of ["modern", "dual", "remote"]) {
        asked.length = 0;
        const result = await useTool(session, "era", server, "confirm", { what: "deploy" });
        // The fixture checks that its requestState came back byte for byte.
        assert.equal(okText(result), "deploy confirmed by Ada", server);
        assert.deepEqual(asked, ["Who confirms deploy?"], server);
      }
    });

    await t.test("a cancelled call reaches the server", async () => {
      for (const server of ["modern", "dual", "remote"]) {
        await cancelledWait(session, server, "wait", { ms: 10_000 });
      }
      await cancelledWait(session, "legacy", "sleep", { ms: 10_000 });
      // Over HTTP the cancellation is the end of the call's POST (see http-link.ts abortRequest).
      for (const server of ["modern", "dual", "remote"]) {
        const stats = await eventuallyText(session, server, "stats", (text) => JSON.parse(text).cancelled >= 1);
        assert.ok(JSON.parse(stats).cancelled >= 1, `${server}: ${stats}`);
      }
      assert.equal(await eventuallyText(session, "legacy", "cancellations", (text) => text !== "0"), "1");
      // A POST cut on purpose is neither an error to log nor a lost connection.
      assert.doesNotMatch(session.stderr(), /\[era\/remote\] cancelled|connection to the server lost/);
    });

    await t.test("the legacy server was probed once, then initialized on the same process", () => {
      const seen = readFileSync(methods, "utf8").trim().split("\n");
      assert.deepEqual(seen.slice(0, 2), ["server/discover", "initialize"]);
      assert.equal(seen.filter((method) => method === "server/discover").length, 1);
    });
  } finally {
    await session.close();
  }

  await t.test("the next start remembers each era: no probe of the legacy server", async () => {
    const eras = readdirSync(cache).filter((name) => name.startsWith("era-"))
      .map((name) => JSON.parse(readFileSync(`${cache}/${name}`, "utf8")).era).sort();
    assert.deepEqual(eras, ["2025-11-25", "2025-11-25", "2026-07-28", "2026-07-28", "2026-07-28"]);
    const again = await startWorkbench(config, { WORKBENCH_CACHE_DIR: cache }, elicitingClient(asked));
    try {
      const reopened = opened(await openToolbox(again, "era"));
      assert.equal(reopened.servers_connected, 5, JSON.stringify(reopened));
      assert.equal(okText(await useTool(again, "era", "legacy", "echo", { text: "again" })), "legacy: again");
      assert.equal(okText(await useTool(again, "era", "modern", "echo", { text: "again" })), "2026-07-28: again");
      const seen = readFileSync(methods, "utf8").trim().split("\n");
      assert.equal(seen.filter((method) => method === "server/discover").length, 1, seen.join(", "));
      assert.equal(seen.filter((method) => method === "initialize").length, 2);
    } finally {
      await again.close();
    }
  });

  await http.stop();
});
