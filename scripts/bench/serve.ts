/**
 * Figure 10: the workbench served over HTTP (`serve --http 127.0.0.1:0`, the open loopback mode),
 * against the same workbench over stdio: echo p50 through use_tool over each (what HTTP adds),
 * throughput with 8 clients × 8 calls in flight, resident memory with 1,000 idle sessions, and the time
 * a new session takes to its first answer (initialize to the first echo's result).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import process from "node:process";
import { Client } from "../../src/protocol/sdk.ts";
import { StreamableHTTPClientTransport } from "../../src/protocol/sdk-remote.ts";
import { type LatencyFigures, measureLatency } from "./calls.ts";
import { BUDGET_MS, type Plan } from "./plan.ts";
import { type BenchSetup, ONE, type ToolResult, viaWorkbench } from "./setup.ts";
import { type Target, workbenchCommand } from "./targets.ts";
import { IDLE_SESSIONS, idleConfig, idleResident } from "./idle-sessions.ts";
import type { Command } from "./rpc-client.ts";
import { median, percentile } from "./stats.ts";

const START_MS = 30_000;
const ECHO_ARGS = { text: "hello from the bench" };
export const SERVE_CLIENTS = 8;
export const SERVE_IN_FLIGHT = 8;
export { IDLE_SESSIONS };

export interface ServeFigures {
  /** `workbench` is over HTTP, `direct` the same workbench over stdio: the overhead is what HTTP adds. */
  echo: LatencyFigures;
  throughput: { clients: number; inFlight: number; calls: number; callsPerSecond: number };
  /** What IDLE_SESSIONS idle sessions add to the process's RSS, and its RSS with them. */
  idle: { sessions: number; bytesPerSession: number; addedBytes: number; residentBytes: number };
  firstAnswerMs: { sessions: number; p50: number; p95: number };
}

/** A running `serve --http`: its endpoint and pid. */
export interface Served {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `serve --http 127.0.0.1:0` for the target (or a command that runs the workbench, given
 * `--config` here); resolves with the URL its stderr line gives.
 */
export function startServe(target: Target | Command, configPath: string, env: Record<string, string> = {}, cwd?: string): Promise<Served> {
  const { command, args } = typeof target === "string" ? workbenchCommand(target, configPath) : { ...target, args: [...target.args, "--config", configPath] };
  const child: ChildProcess = spawn(command, [...args, "serve", "--http", "127.0.0.1:0"], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    let stderr = "";
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`serve --http did not listen in ${START_MS} ms: ${stderr}`));
    }, START_MS);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`serve --http exited with ${code}: ${stderr}`));
    });
    child.stderr!.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
      const match = /http:\/\/[^\s'"]+\/mcp/.exec(stderr);
      if (!match) return;
      clearTimeout(timer);
      resolve({ url: match[0], pid: child.pid!, stop });
    });
  });
}

/** An SDK client over Streamable HTTP, with `bearer` as its Authorization (the open mode ignores it). */
export async function httpClient(url: string, bearer = "bench"): Promise<Client & { end(): Promise<void> }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } });
  const client = new Client({ name: "bench-http", version: "1.0.0" });
  await client.connect(transport);
  return Object.assign(client, {
    // DELETE ends the session on the workbench, then the client closes.
    end: async () => {
      await transport.terminateSession().catch(() => {});
      await client.close().catch(() => {});
    },
  });
}

/** One echo through use_tool; a failed one stops the figure (it would flatter it). */
async function useEcho(client: Client): Promise<ToolResult> {
  const result = await client.callTool({ name: "use_tool", arguments: { tool: { toolbox: ONE, server: "s1", name: "echo" }, arguments: ECHO_ARGS } }) as ToolResult;
  if (result.isError) throw new Error(`echo over HTTP failed: ${JSON.stringify(result).slice(0, 200)}`);
  return result;
}
const openOne = (client: Client) => client.callTool({ name: "open_toolbox", arguments: { toolbox_name: ONE } });

export async function measureServe(target: Target, setup: BenchSetup, plan: Plan): Promise<ServeFigures> {
  const served = await startServe(target, setup.configPath, setup.workbenchEnv, setup.dir);
  const stdio = await viaWorkbench(target, setup);
  const clients: (Client & { end(): Promise<void> })[] = [];
  try {
    const first = await httpClient(served.url, "client-0");
    clients.push(first);
    await openOne(first);
    const echo = await measureLatency({
      workbench: { callTool: () => useEcho(first) },
      direct: { callTool: (name, args) => stdio.callTool(name, args) },
    }, plan);
    for (let index = 1; index < SERVE_CLIENTS; index++) {
      const client = await httpClient(served.url, `client-${index}`);
      clients.push(client);
      await openOne(client);
    }
    // Warmed up first, as the echo figure is: the first calls of eight new clients run cold code.
    await measureThroughput(clients, Math.ceil(plan.concurrentCalls / 20));
    const throughput = await measureThroughput(clients, Math.ceil(plan.concurrentCalls / 4));
    const firstAnswerMs = await measureFirstAnswer(served.url, plan.rounds * 10);
    // On a process of its own: what the calls above left in the heap would blur a few MiB.
    const idle = await measureIdle(target, setup);
    return { echo, throughput, idle, firstAnswerMs };
  } finally {
    await Promise.allSettled(clients.map((client) => client.end()));
    await stdio.close();
    await served.stop();
  }
}

/** Each client keeps SERVE_IN_FLIGHT echo calls in flight until `total` calls are done or the budget is spent. */
async function measureThroughput(clients: Client[], total: number): Promise<ServeFigures["throughput"]> {
  const deadline = performance.now() + BUDGET_MS.concurrent;
  let started = 0;
  let done = 0;
  const began = performance.now();
  const worker = async (client: Client) => {
    while (started < total && performance.now() < deadline) {
      started++;
      await useEcho(client);
      done++;
    }
  };
  await Promise.all(clients.flatMap((client) => Array.from({ length: SERVE_IN_FLIGHT }, () => worker(client))));
  const seconds = (performance.now() - began) / 1000;
  return { clients: clients.length, inFlight: SERVE_IN_FLIGHT, calls: done, callsPerSecond: done / seconds };
}

/** New sessions one after another: initialize, open_toolbox and one echo, each timed to the echo's answer. */
async function measureFirstAnswer(url: string, sessions: number): Promise<ServeFigures["firstAnswerMs"]> {
  const times: number[] = [];
  const deadline = performance.now() + BUDGET_MS.sequential;
  for (let index = 0; index < sessions && performance.now() < deadline; index++) {
    const began = performance.now();
    const client = await httpClient(url, `new-${index}`);
    await openOne(client);
    await useEcho(client);
    times.push(performance.now() - began);
    await client.end();
  }
  return { sessions: times.length, p50: median(times), p95: percentile(times, 95) };
}

/**
 * Resident memory of a fresh `serve --http` (warmed up by a few sessions opened and ended) before
 * and with IDLE_SESSIONS initialized sessions that do nothing (idle-sessions.ts).
 */
async function measureIdle(target: Target, setup: BenchSetup): Promise<ServeFigures["idle"]> {
  const { configPath, tokens } = idleConfig(setup);
  const served = await startServe(target, configPath, setup.workbenchEnv, setup.dir);
  try {
    const { before, after } = await idleResident(served.url, served.pid, tokens);
    return { sessions: IDLE_SESSIONS, bytesPerSession: (after - before) / IDLE_SESSIONS, addedBytes: after - before, residentBytes: after };
  } finally {
    await served.stop();
  }
}
