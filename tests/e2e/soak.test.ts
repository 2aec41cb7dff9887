/**
 * Soak: many open/call/crash cycles in one session must not leak file descriptors or children.
 * SOAK_CYCLES sets the number of cycles (default 120 per runtime, 100 after the warm-up, for the
 * suite's time; 1,000 or more by hand).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { readdirSync } from "node:fs";
import { fixtureServer } from "../helpers/runtime.ts";
import { descendants, waitReaped } from "../helpers/procs.ts";
import { okText, opened, openToolbox, sleep, useTool } from "../helpers/toolbox.ts";
import { type Session, withWorkbench } from "../helpers/workbench.ts";

const CYCLES = Number(process.env.SOAK_CYCLES ?? 120);
/** Cycles before the baseline: runtimes grow their pools and caches at first. */
const WARM_UP = 20;
/** Open descriptors may vary a little with what the runtime has in flight. */
const FD_TOLERANCE = 5;
/** The fast-starting fixture: a thousand SDK servers would take minutes to start. */
const SERVER = "line-server.ts";

const config = { toolboxes: { soak: { description: "one server that crashes on demand", mcpServers: { s: fixtureServer(SERVER) } } } };

interface Usage {
  fds: number;
  children: string[];
}

/** The workbench's open descriptors and live descendants, once in-flight closes have settled. */
async function usage(session: Session): Promise<Usage> {
  await sleep(200);
  return {
    fds: readdirSync(`/proc/${session.pid}/fd`).length,
    children: descendants(session.pid).map((p) => `${p.pid} ${p.cmdline}`),
  };
}

/** The one server under the workbench; exactly one is expected while it runs. */
function serverPid(session: Session): number {
  const servers = descendants(session.pid).filter((p) => p.cmdline.includes(SERVER));
  assert.equal(servers.length, 1, `one server, got ${JSON.stringify(servers)}`);
  return servers[0].pid;
}

/** open_toolbox (which restarts the crashed server), a call, then a crash we wait out. */
async function cycle(session: Session, n: number): Promise<void> {
  assert.equal(opened(await openToolbox(session, "soak")).servers_connected, 1, `cycle ${n}`);
  assert.equal(okText(await useTool(session, "soak", "s", "echo", { text: `cycle ${n}` })), `cycle ${n}`);
  const pid = serverPid(session);
  okText(await useTool(session, "soak", "s", "exit", { code: 3 }));
  assert.ok(await waitReaped(pid, 5_000), `cycle ${n}: the server exited and was reaped`);
}

/** About 45 s alone; a loaded machine may take several times that, past the 60 s default. */
const SOAK_TIMEOUT_MS = 300_000;

test(`soak: ${CYCLES} open/call/crash cycles leave no growth in open file descriptors or child count`, { timeout: SOAK_TIMEOUT_MS }, async () => {
  assert.ok(CYCLES > WARM_UP, `SOAK_CYCLES must exceed the ${WARM_UP} warm-up cycles`);
  await withWorkbench(config, async (session) => {
    for (let n = 1; n <= WARM_UP; n++) await cycle(session, n);
    const before = await usage(session);
    const started = Date.now();
    for (let n = WARM_UP + 1; n <= CYCLES; n++) await cycle(session, n);
    const perCycle = (Date.now() - started) / (CYCLES - WARM_UP);
    // The last crash's closes settle in their own time (longer on a loaded machine): awaited, bounded.
    let after = await usage(session);
    const settled = () => after.fds <= before.fds + FD_TOLERANCE && after.children.length <= before.children.length;
    for (const until = Date.now() + 10_000; Date.now() < until && !settled();) {
      after = await usage(session);
    }
    console.log(
      `soak: ${CYCLES} cycles, ${perCycle.toFixed(1)} ms per cycle; fds ${before.fds} -> ${after.fds}; ` +
        `children ${before.children.length} -> ${after.children.length}`,
    );
    assert.ok(after.fds <= before.fds + FD_TOLERANCE, `open fds grew from ${before.fds} to ${after.fds}`);
    assert.deepEqual(after.children, before.children, "no child left behind");
  });
});
