/**
 * nginx (the Debian package) in front of workbench replicas on loopback, for the scale-out test:
 * one process (master_process off) with a temporary prefix, configuration, pid file and logs,
 * listening on a free loopback port, keeping each client on one replica by hashing its
 * Authorization header; stopped by its pid. `nginxMissing()` says why it cannot run here.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import process from "node:process";
import { tempDir } from "./workbench.ts";

// /usr/sbin is not on every PATH.
const NGINX = process.env.WORKBENCH_NGINX ?? (existsSync("/usr/sbin/nginx") ? "/usr/sbin/nginx" : "nginx");
const START_MS = 10_000;

/** Why nginx cannot run here, or undefined when it can. */
export function nginxMissing(): string | undefined {
  const probe = spawnSync(NGINX, ["-v"], { encoding: "utf8", timeout: 5_000 });
  if (probe.error) return `nginx is not installed (${NGINX}: ${probe.error.message}); .ci/run installs it with apt-get`;
  return probe.status === 0 ? undefined : `nginx -v exited with ${probe.status}`;
}

/** A free port on loopback (a listener on port 0, closed again). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")));
    });
  });
}

/**
 * The configuration the README shows, with the paths of a temporary prefix: one upstream of the
 * replicas, chosen by a consistent hash of the Authorization header; a replica that refuses a
 * connection is skipped for the next one (a request not yet sent is safe to pass on, POST or not);
 * responses stream (SSE) without buffering. No `keepalive` to the replicas: a request sent on a
 * kept connection to a replica that just died is not passed on (a tool call must not run twice),
 * so the client would get 502; a fresh connection is refused at once, and passed on.
 */
export function nginxConfig(prefix: string, port: number, replicas: string[], balance: Balance = "hash"): string {
  return `daemon off;
master_process off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 1024; }
http {
  # Which replica each client reached: the tests' tokens are not secrets (a real configuration logs no Authorization).
  log_format routes '$http_authorization|$upstream_addr|$request_method|$status|$msec|$request_time';
  access_log ${prefix}/routes.log routes;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  upstream workbench {
${balance === "hash" ? "    hash $http_authorization consistent;" : "    # Round robin: any request to any replica (a shared store keeps what sessions keep)."}
${replicas.map((replica) => `    server ${replica} max_fails=1 fail_timeout=30s;`).join("\n")}
  }
  server {
    listen 127.0.0.1:${port};
    location / { return 404; }
    location /mcp {
      proxy_pass http://workbench;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 1h;
      proxy_next_upstream error timeout;
      proxy_connect_timeout 2s;
    }
  }
}
`;
}

export interface Nginx {
  /** http://127.0.0.1:<port>/mcp */
  url: string;
  pid: number;
  /** nginx's error log so far. */
  errors(): string;
  /** The log: authorization|replicas|method|status|time|duration, one line a request. */
  log(): string;
  /** The replicas ("127.0.0.1:PORT") that requests with this Authorization reached, in order. */
  routes(authorization: string): string[];
  stop(): Promise<void>;
}

/** How nginx picks a replica: by a hash of the Authorization header (sticky), or each request in turn. */
export type Balance = "hash" | "round-robin";

/** Starts nginx in front of the replicas ("127.0.0.1:PORT" each); resolves once it accepts connections. */
export async function startNginx(replicas: string[], balance: Balance = "hash"): Promise<Nginx> {
  const prefix = tempDir();
  for (const dir of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(`${prefix}/${dir}`);
  const port = await freePort();
  writeFileSync(`${prefix}/nginx.conf`, nginxConfig(prefix, port, replicas, balance));
  const child: ChildProcess = spawn(NGINX, ["-p", prefix, "-c", `${prefix}/nginx.conf`], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const errors = () => {
    try {
      return stderr + readFileSync(`${prefix}/error.log`, "utf8");
    } catch {
      return stderr;
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + START_MS;
  const url = `http://127.0.0.1:${port}/mcp`;
  while (true) {
    if (child.exitCode !== null) throw new Error(`nginx exited with code ${child.exitCode}: ${errors()}`);
    try {
      await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1_000) }).then((response) => response.body?.cancel());
      break;
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`nginx did not listen in ${START_MS} ms: ${errors()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const log = () => {
    try {
      return readFileSync(`${prefix}/routes.log`, "utf8");
    } catch {
      return "";
    }
  };
  const routes = (authorization: string) => {
    return log().split("\n").filter((line) => line.startsWith(`${authorization}|`)).flatMap((line) => line.split("|")[1].split(", "));
  };
  return { url, pid: child.pid!, errors, log, routes, stop };
}
