/**
 * A real redis-server (the Debian package) for the tests of the Redis store and link: on a free
 * loopback port (Redis cannot take port 0: a port is found by binding and releasing it, and tried
 * again on a clash), saving nothing (`--save "" --appendonly no`), in a temporary folder that
 * `stop()` removes. Stopped by its pid, and started again on the same port to show an outage end.
 * `redisMissing()` says why it cannot run here, for the tests to skip saying so.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { freePort } from "./nginx.ts";

// /usr/bin holds it on Debian; WORKBENCH_REDIS names another (a valkey-server works too).
const REDIS = process.env.WORKBENCH_REDIS ?? (existsSync("/usr/bin/redis-server") ? "/usr/bin/redis-server" : "redis-server");
const START_MS = 10_000;
const PORT_TRIES = 5;

/** Why redis-server cannot run here, or undefined when it can. */
export function redisMissing(): string | undefined {
  const probe = spawnSync(REDIS, ["--version"], { encoding: "utf8", timeout: 5_000 });
  if (probe.error) return `redis-server is not installed (${REDIS}: ${probe.error.message}); .ci/run installs it with apt-get`;
  return probe.status === 0 ? undefined : `${REDIS} --version exited with ${probe.status}`;
}

export interface RedisServer {
  port: number;
  /** redis://127.0.0.1:<port> */
  url: string;
  /** The pid of the server running now (another after each start). */
  pid(): number;
  /** Kills it (SIGKILL by default, as a crash) and waits until it has exited; the port stays ours to start again. */
  kill(signal?: "SIGKILL" | "SIGTERM"): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open and nothing answers; `resume` thaws it. */
  pause(): void;
  resume(): void;
  /** Starts it again on the same port, empty; `args` instead of the first start's (another password). */
  start(args?: string[]): Promise<void>;
  /** Kills it and removes its folder. */
  stop(): Promise<void>;
}

/**
 * Starts redis-server on a free loopback port; `args` adds to its command line (e.g. a user).
 * With `tls` (a certificate and its key, PEM files), the port speaks TLS only.
 */
export async function startRedis(args: string[] = [], tls?: { cert: string; key: string }): Promise<RedisServer> {
  const dir = mkdtempSync(`${tmpdir()}/workbench-redis-`);
  // A test that fails before its stop must not leave the folder behind either.
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  process.once("exit", removeDir);
  let child: Running | undefined;
  for (let attempt = 1; child === undefined; attempt++) {
    const port = await freePort();
    try {
      child = await run(port, dir, args, tls);
    } catch (error) {
      // Another process took the port between our release and Redis's bind: another port.
      if (!/address already in use/i.test(String(error)) || attempt >= PORT_TRIES) {
        process.removeListener("exit", removeDir);
        removeDir();
        throw error;
      }
    }
  }
  const port = child.port;
  const kill = async (signal: "SIGKILL" | "SIGTERM" = "SIGKILL") => {
    const running = child;
    if (running === undefined) return;
    child = undefined;
    await running.end(signal);
  };
  return {
    port,
    url: `${tls ? "rediss" : "redis"}://127.0.0.1:${port}`,
    pid: () => child?.process.pid ?? -1,
    kill,
    pause: () => child && process.kill(child.process.pid!, "SIGSTOP"),
    resume: () => child && process.kill(child.process.pid!, "SIGCONT"),
    start: async (again = args) => {
      if (child === undefined) child = await run(port, dir, again, tls);
    },
    stop: async () => {
      await kill();
      process.removeListener("exit", removeDir);
      removeDir();
    },
  };
}

interface Running {
  port: number;
  process: ChildProcess;
  end(signal: "SIGKILL" | "SIGTERM"): Promise<void>;
}

/** One redis-server process, resolved once it accepts connections, rejected with its output if it exits first. */
async function run(port: number, dir: string, args: string[], tls?: { cert: string; key: string }): Promise<Running> {
  const ports = tls
    ? ["--port", "0", "--tls-port", String(port), "--tls-cert-file", tls.cert, "--tls-key-file", tls.key, "--tls-auth-clients", "no"]
    : ["--port", String(port)];
  const options = [...ports, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir];
  const child = spawn(REDIS, [...options, "--daemonize", "no", "--logfile", "", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (text: string) => (output += text));
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (output += text));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // A test that fails before its stop must not leave a server behind.
  const orphan = () => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL");
  process.once("exit", orphan);
  const end = async (signal: "SIGKILL" | "SIGTERM") => {
    process.removeListener("exit", orphan);
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(child.pid!, "SIGCONT");
      child.kill(signal);
    }
    await exited;
  };
  const deadline = Date.now() + START_MS;
  while (!/ready to accept connections/i.test(output)) {
    if (child.exitCode !== null || child.signalCode !== null) {
      process.removeListener("exit", orphan);
      throw new Error(`redis-server on port ${port} exited with ${child.exitCode ?? child.signalCode}: ${output}`);
    }
    if (Date.now() > deadline) {
      await end("SIGKILL");
      throw new Error(`redis-server did not start in ${START_MS} ms: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { port, process: child, end };
}
