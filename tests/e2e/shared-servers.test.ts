/**
 * The footprint follows use (issue 15): one process per server definition across toolboxes, idle
 * servers stopped and started again unseen, tool lists that follow the server's list_changed, and
 * the servers' own instructions in open_toolbox.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import type { Session } from "../helpers/workbench.ts";
import { removeTempDirs, withWorkbench } from "../helpers/workbench.ts";
import { errorText, eventually, fx, okText, opened, openToolbox, spawnLog, toolsOf, useTool } from "../helpers/toolbox.ts";
import { fixturePids, isAlive, waitGone, waitReaped } from "../helpers/procs.ts";

// The folders this file's tests made with tempDir() or spawnLog() go once they are done.
after(removeTempDirs);

const ERR = "Error executing tool";

async function pidOf(session: Session, toolbox: string, server: string): Promise<number> {
  return Number(okText(await useTool(session, toolbox, server, "pid")));
}

test("shared servers: two toolboxes with one definition start one process, each with its own name and filtered view", async () => {
  const log = spawnLog();
  const fs = fx("shared", {}, log.env);
  const config = {
    toolboxes: {
      dev: { description: "Dev", mcpServers: { files: { ...fs, toolFilters: ["echo", "pid", "exit"] } } },
      docs: { description: "Docs", mcpServers: { fs: { ...fs, toolFilters: ["echo", "pid"] }, other: fx("other", {}, log.env) } },
      later: { description: "Later", mcpServers: { fs } },
    },
  };
  await withWorkbench(config, async (session) => {
    // Opened concurrently: still one start.
    const [dev, docs] = await Promise.all([openToolbox(session, "dev"), openToolbox(session, "docs")]);
    assert.deepEqual(toolsOf(opened(dev), "files"), ["echo", "pid", "exit"]);
    assert.deepEqual(toolsOf(opened(docs), "fs"), ["echo", "pid"]);
    assert.deepEqual(log.spawned().map((line) => line.split(" ")[0]), ["other", "shared"]);
    const pid = await pidOf(session, "dev", "files");
    assert.equal(await pidOf(session, "docs", "fs"), pid, "both names reach one process");
    assert.equal(okText(await useTool(session, "docs", "fs", "echo", { text: "hi" })), "shared: hi");
    // Each toolbox's filters hold for its own name of the server.
    assert.match(errorText(await useTool(session, "docs", "fs", "exit", { code: 3 })), /Tool 'exit' not found in server 'fs'/);

    // A crash through one toolbox is seen by the other, and one restart serves both.
    await useTool(session, "dev", "files", "exit", { code: 3 });
    assert.ok(await waitReaped(pid, 10_000), "the crashed server is reaped");
    const [afterDocs, afterDev] = await Promise.all([pidOf(session, "docs", "fs"), pidOf(session, "dev", "files")]);
    assert.notEqual(afterDocs, pid);
    assert.equal(afterDev, afterDocs, "one restart for both toolboxes");
    assert.equal(log.spawned().filter((line) => line.startsWith("shared ")).length, 2, "started once, restarted once");
    assert.equal(fixturePids(session).length, 2, "one process per definition");

    // Opened after its only server runs for other toolboxes: open all the same, and usable.
    opened(await openToolbox(session, "later"));
    assert.equal(okText(await useTool(session, "later", "fs", "echo", { text: "later" })), "shared: later");
  });
});

test("shared servers: a toolbox opened after another that started its server is open; one never opened is refused", async () => {
  const log = spawnLog();
  const q = fx("q", {}, log.env);
  const config = {
    toolboxes: {
      a: { description: "A", mcpServers: { q } },
      b: { description: "B", mcpServers: { q: { ...q, toolFilters: ["echo"] } } },
    },
  };
  await withWorkbench(config, async (session) => {
    // b is not open yet, though its server will be: refused as the spec says.
    assert.match(errorText(await useTool(session, "b", "q", "echo", { text: "early" })), /Toolbox 'b' is not open/);
    opened(await openToolbox(session, "a"));
    assert.deepEqual(toolsOf(opened(await openToolbox(session, "b")), "q"), ["echo"]);
    assert.equal(okText(await useTool(session, "b", "q", "echo", { text: "hi" })), "q: hi");
    assert.equal(okText(await useTool(session, "a", "q", "echo", { text: "hi" })), "q: hi");
    assert.deepEqual(log.spawned().map((line) => line.split(" ")[0]), ["q"]);
  });
});

test("shared servers: 200 opens and calls across toolboxes that share servers leave one process per definition", async () => {
  const log = spawnLog();
  const a = fx("a", {}, log.env);
  const b = fx("b", {}, log.env);
  const config = {
    toolboxes: {
      one: { description: "One", mcpServers: { a, b } },
      two: { description: "Two", mcpServers: { first: a, second: b } },
      three: { description: "Three", mcpServers: { b, a: { ...a, toolFilters: ["echo"] } } },
    },
  };
  await withWorkbench(config, async (session) => {
    const toolboxes = [["one", "a"], ["two", "second"], ["three", "b"], ["one", "b"], ["two", "first"], ["three", "a"]];
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 200; i++) {
      const [toolbox, server] = toolboxes[i % toolboxes.length];
      work.push(i % 2 === 0 ? openToolbox(session, toolbox) : openToolbox(session, toolbox).then(() =>
        useTool(session, toolbox, server, "echo", { text: String(i) })
      ));
      if (work.length >= 20) await Promise.all(work.splice(0));
    }
    const results = await Promise.all(work);
    assert.ok(results.every((result) => !(result as { isError?: boolean }).isError));
    assert.deepEqual(log.spawned().map((line) => line.split(" ")[0]), ["a", "b"]);
    assert.equal(fixturePids(session).length, 2);
  });
});

test("idle stop: idleTimeoutMs stops a server without calls; the next call starts a new one, not counted as a failure", async () => {
  const log = spawnLog();
  const config = {
    idleTimeoutMs: 300,
    toolboxes: { dev: { description: "Dev", mcpServers: { fx: fx("idle", {}, log.env), stays: fx("stays", { idleTimeoutMs: 0 }, log.env) } } },
  };
  const started = () => log.spawned().filter((line) => line.startsWith("idle ")).map((line) => Number(line.split(" ")[1]));
  await withWorkbench(config, async (session) => {
    await openToolbox(session, "dev");
    const stays = await pidOf(session, "dev", "stays");
    // More idle stops in a row than failures allowed (5), with calls that fail (a JSON-RPC error
    // is no success that would forgive failures): had the stops counted, the starts would wait
    // 0.5, 1 and 2 s, and then the server would be given up, which the fifth call's text would say
    // (judged by that, not by a bound in seconds on each start).
    for (let round = 1; round <= 6; round++) {
      const pids = started();
      assert.equal(pids.length, round);
      assert.deepEqual(await waitGone([pids.at(-1)!], 10_000), [], `round ${round}: the idle server is stopped`);
      assert.match(errorText(await useTool(session, "dev", "fx", "throw")), /idle threw on purpose/, `round ${round}`);
    }
    assert.ok(isAlive(stays), "idleTimeoutMs 0 on a server keeps it running");
    assert.equal(await pidOf(session, "dev", "stays"), stays);
    assert.match(session.stderr(), /\[dev\/fx\] stopped after 300 ms without a call \(idleTimeoutMs\)/);
  });
});

test("idle stop: a call in flight is not idle, even when other calls end meanwhile; the clock starts when the last ends", async () => {
  const config = { toolboxes: { dev: { description: "Dev", mcpServers: { fx: fx("busy", { idleTimeoutMs: 400 }) } } } };
  await withWorkbench(config, async (session) => {
    await openToolbox(session, "dev");
    const pid = await pidOf(session, "dev", "fx");
    const long = useTool(session, "dev", "fx", "sleep", { ms: 1_500 });
    assert.equal(await pidOf(session, "dev", "fx"), pid, "a short call ends while the long one runs");
    assert.equal(okText(await long), "busy slept 1500 ms");
    assert.ok(isAlive(pid), "the server was not stopped under the long call");
    assert.equal(await pidOf(session, "dev", "fx"), pid);
    assert.deepEqual(await waitGone([pid], 10_000), []);
  });
});

test("live tool lists: a tool the server adds is callable at once, a removed one is not found, and open_toolbox shows the change", async () => {
  // Unpinned: a pinned server's added tool is withheld until approved (tests/e2e/pins.test.ts).
  const config = { toolboxes: { dev: { description: "Dev", mcpServers: { fx: fx("dyn", { pin: false }, { FIXTURE_DYNAMIC: "1" }) } } } };
  await withWorkbench(config, async (session) => {
    await openToolbox(session, "dev");
    assert.match(errorText(await useTool(session, "dev", "fx", "fresh")), /Tool 'fresh' not found in server 'fx'/);
    await useTool(session, "dev", "fx", "add_tool", { name: "fresh" });
    // No reopening: the very next call reaches it.
    assert.equal(okText(await useTool(session, "dev", "fx", "fresh")), "dyn ran added 'fresh'");
    assert.ok(toolsOf(opened(await openToolbox(session, "dev")), "fx").includes("fresh"));
    await useTool(session, "dev", "fx", "remove_tool", { name: "fresh" });
    await eventually("the list without 'fresh'", async () => toolsOf(opened(await openToolbox(session, "dev")), "fx"), (names) => !names.includes("fresh"));
    assert.match(errorText(await useTool(session, "dev", "fx", "fresh")), new RegExp(`${ERR}: Tool 'fresh' not found in server 'fx'`));
  });
});

test("server instructions: open_toolbox gives what servers said in initialize, only for servers that said something", async () => {
  const config = {
    toolboxes: {
      dev: {
        description: "Dev",
        mcpServers: {
          guide: fx("guide", {}, { FIXTURE_INSTRUCTIONS: "Call echo before anything else." }),
          plain: fx("plain"),
          // Two definitions (another label) that say the same: the text comes once, naming both.
          twin: fx("twin", {}, { FIXTURE_INSTRUCTIONS: "Same words." }),
          again: fx("again", {}, { FIXTURE_INSTRUCTIONS: "Same words." }),
        },
      },
    },
  };
  await withWorkbench(config, async (session) => {
    const full = opened(await openToolbox(session, "dev"));
    const expected = { guide: "Call echo before anything else.", "twin, again": "Same words." };
    assert.deepEqual(full.instructions, expected);
    const summary = JSON.parse(okText(await session.call("open_toolbox", { toolbox_name: "dev", detail: "summary" })));
    assert.deepEqual(summary.instructions, expected);
    // A selection of tools follows an open that gave them already.
    const some = JSON.parse(okText(await session.call("open_toolbox", { toolbox_name: "dev", tools: ["echo"] })));
    assert.equal(some.instructions, undefined);
  });
});

test("server instructions: a toolbox whose servers give none has no instructions key (the spec's result)", async () => {
  await withWorkbench({ toolboxes: { dev: { description: "Dev", mcpServers: { plain: fx("plain") } } } }, async (session) => {
    const value = opened(await openToolbox(session, "dev"));
    assert.deepEqual(Object.keys(value), ["toolbox", "description", "servers_connected", "tools"]);
  });
});
