/**
 * The stop sequence the README promises, watched from the servers' side: whichever way the
 * workbench is told to stop, each server's stdin closes at once, SIGTERM follows about 2 s later
 * for a server still running, SIGKILL about 2 s after that for one that ignores SIGTERM, and a
 * server that leaves when its stdin closes is never signalled. The workbench exits 0, as its own
 * signal handlers make it. The client is a bare one (RawClient): the SDK's close would send
 * signals of its own.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import process from "node:process";
import { killIfAlive, RawClient } from "../fixtures/exit-paths.ts";
import { fixtureServer } from "../helpers/runtime.ts";
import { isAlive } from "../helpers/procs.ts";
import { sleep } from "../helpers/toolbox.ts";
import { tempDir, writeConfig } from "../helpers/workbench.ts";

/** The workbench's grace after closing a server's stdin, and again after SIGTERM, is 2 s. */
const GRACE_FLOOR_MS = 1_500;
/** A step that takes longer than this is not the 2 s grace but something else. */
const GRACE_CEILING_MS = 5_000;
/** The stdin of every server closes promptly once the workbench is told to stop. */
const PROMPT_MS = 1_500;
/** Everything is gone within this (4 s expected). */
const ALL_GONE_MS = 15_000;

type Trigger = "stdin close" | "SIGTERM" | "SIGINT" | "SIGHUP";

interface Event {
  server: string;
  event: string;
  /** What follows the event's name: the pid, for `start`. */
  detail: string;
  at: number;
}

function recorder(label: string, mode: "stay" | "ignore-sigterm" | "exit-on-eof", log: string) {
  return fixtureServer("stop-recorder.ts", { env: { STOP_LOG: log, STOP_LABEL: label, STOP_MODE: mode } });
}

function readEvents(log: string): Event[] {
  return readFileSync(log, "utf8").trim().split("\n").map((line) => {
    const [server, event, ...rest] = line.split(" ");
    return { server, event, detail: rest.slice(0, -1).join(" "), at: Number(rest.at(-1)) };
  });
}

/** Polls (bounded) until each pid is gone; returns when each went. */
async function goneTimes(pids: Record<string, number>, timeoutMs: number): Promise<Record<string, number>> {
  const gone: Record<string, number> = {};
  const deadline = Date.now() + timeoutMs;
  while (Object.keys(gone).length < Object.keys(pids).length && Date.now() < deadline) {
    for (const [server, pid] of Object.entries(pids)) if (!(server in gone) && !isAlive(pid)) gone[server] = Date.now();
    await sleep(25);
  }
  return gone;
}

async function checkStopSequence(trigger: Trigger): Promise<void> {
  const dir = tempDir();
  const log = `${dir}/stop.log`;
  const config = {
    toolboxes: {
      stop: {
        description: "servers that record how they are stopped",
        mcpServers: {
          stays: recorder("stays", "stay", log),
          stubborn: recorder("stubborn", "ignore-sigterm", log),
          leaves: recorder("leaves", "exit-on-eof", log),
        },
      },
    },
  };
  const client = new RawClient(writeConfig(dir, config), dir);
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    client.child.on("exit", (code, signal) => resolve({ code, signal }))
  );
  const pids: Record<string, number> = {};
  try {
    await client.initialize();
    await client.callTool("open_toolbox", { toolbox_name: "stop" });
    for (const { server, event, detail } of readEvents(log)) if (event === "start") pids[server] = Number(detail);
    assert.deepEqual(Object.keys(pids).sort(), ["leaves", "stays", "stubborn"]);

    const triggered = Date.now();
    if (trigger === "stdin close") client.closeStdin();
    else process.kill(client.pid, trigger);
    const gone = await goneTimes({ workbench: client.pid, ...pids }, ALL_GONE_MS);
    const context = `\nevents:\n${readFileSync(log, "utf8")}The workbench's stderr:\n${client.stderr()}`;
    assert.deepEqual(Object.keys(gone).sort(), ["leaves", "stays", "stubborn", "workbench"], `all gone${context}`);
    assert.deepEqual(await exited, { code: 0, signal: null }, `the workbench stopped itself${context}`);

    const after = readEvents(log).filter((e) => e.event !== "start");
    const of = (server: string) => after.filter((e) => e.server === server);
    const at = (server: string, event: string) => of(server).find((e) => e.event === event)!.at;
    const gap = (what: string, from: number, to: number, floor: number, ceiling: number) =>
      assert.ok(to - from >= floor && to - from < ceiling, `${what}: ${to - from} ms, expected ${floor} to ${ceiling} ms${context}`);

    // A server that leaves when its stdin closes is left to go: no signal reaches it.
    assert.deepEqual(of("leaves").map((e) => e.event), ["stdin-end", "exit"], `leaves${context}`);
    // A server still running gets SIGTERM after the grace.
    assert.deepEqual(of("stays").map((e) => e.event), ["stdin-end", "SIGTERM"], `stays${context}`);
    // One that ignores SIGTERM gets SIGKILL after a second grace (it records nothing more).
    assert.deepEqual(of("stubborn").map((e) => e.event), ["stdin-end", "SIGTERM"], `stubborn${context}`);
    for (const server of ["stays", "stubborn", "leaves"]) {
      gap(`${server}: from the trigger to its stdin's end`, triggered, at(server, "stdin-end"), 0, PROMPT_MS);
    }
    gap("stays: from stdin's end to SIGTERM", at("stays", "stdin-end"), at("stays", "SIGTERM"), GRACE_FLOOR_MS, GRACE_CEILING_MS);
    gap("stubborn: from stdin's end to SIGTERM", at("stubborn", "stdin-end"), at("stubborn", "SIGTERM"), GRACE_FLOOR_MS, GRACE_CEILING_MS);
    gap("stubborn: from SIGTERM to its end (SIGKILL)", at("stubborn", "SIGTERM"), gone.stubborn, GRACE_FLOOR_MS, GRACE_CEILING_MS);
  } finally {
    for (const pid of [...Object.values(pids), client.pid]) killIfAlive(pid);
    client.child.stdin.destroy();
    client.child.stdout.destroy();
    client.child.stderr.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const trigger of ["stdin close", "SIGTERM", "SIGINT", "SIGHUP"] as const) {
  test(`stop sequence: on ${trigger}, stdin closes, SIGTERM comes after 2 s, SIGKILL 2 s later; a server that left is not signalled`, () =>
    checkStopSequence(trigger));
}
