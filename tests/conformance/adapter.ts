/**
 * The client side of the official MCP conformance suite, played by mcp-workbench as a user would
 * drive it: the runner starts this script with the scenario's server URL as its last argument
 * (MCP_CONFORMANCE_SCENARIO names the scenario, MCP_CONFORMANCE_CONTEXT holds its credentials).
 * It writes a configuration with one toolbox `tb` and one server `srv` at that URL in a private
 * folder, logs in with `mcp-workbench auth tb srv --no-browser` where the scenario needs OAuth
 * (following the printed URL as a browser would; for client credentials it only checks them),
 * then lists or calls tools with the workbench.
 * The elicitation scenario is played by an SDK client in front of the workbench instead
 * (elicitation-client.ts): the server's question must reach a client through the relay.
 * When a call names a login that asks for more scopes, it runs that login once and calls again,
 * as the user told so would. The workbench is WORKBENCH_COMMAND (a JSON array: the test gives
 * the runtime and source it runs under), else WORKBENCH_BIN, else dist/mcp-workbench.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { playElicitationDefaults } from "./elicitation-client.ts";

const CIMD_URL = "https://conformance-test.local/client-metadata.json";
const STEP_MS = 20_000;
const repoRoot = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const [workbench, ...workbenchArgs] = process.env.WORKBENCH_COMMAND
  ? JSON.parse(process.env.WORKBENCH_COMMAND) as string[]
  : [process.env.WORKBENCH_BIN || `${repoRoot}/dist/mcp-workbench`];

interface Ran {
  code: number | null;
  output: string;
}

/** Runs the workbench; for `auth`, follows the authorization URL it prints. */
/** The workbench running now, for a stop by the runner (its timeout). */
let running: ReturnType<typeof spawn> | undefined;

function run(args: string[], env: Record<string, string>): Promise<Ran> {
  const child = spawn(workbench, [...workbenchArgs, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  running = child;
  let output = "";
  let followed = false;
  const timer = setTimeout(() => child.kill("SIGKILL"), STEP_MS);
  const onData = (text: string) => {
    output += text;
    const url = /^Open this URL to log in[^\n]*\n(\S+)$/m.exec(output)?.[1];
    if (url && !followed) {
      followed = true;
      void browse(url).catch((error) => (output += `\nadapter: following the URL failed: ${error}\n`));
    }
  };
  child.stdout.setEncoding("utf8").on("data", onData);
  child.stderr.setEncoding("utf8").on("data", onData);
  return new Promise((resolve) => {
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** What a browser does: follow redirects (a bounded number) until the loopback callback has answered. */
async function browse(start: string): Promise<void> {
  let url = start;
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(url, { redirect: "manual" });
    await response.body?.cancel();
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || !location) return;
    url = new URL(location, url).href;
  }
}

/** The words of a command line written with POSIX single quotes, as the workbench writes them. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  const pattern = /'((?:[^']|'\\'')*)'|(\S+)/g;
  for (const match of line.matchAll(pattern)) words.push(match[1] !== undefined ? match[1].replaceAll(`'\\''`, "'") : match[2]);
  return words;
}

function serverEntry(scenario: string, url: string, context: Record<string, string>, dir: string): Record<string, unknown> {
  if (scenario === "auth/pre-registration") return { url, oauth: { clientId: context.client_id, clientSecret: context.client_secret } };
  if (scenario === "auth/client-credentials-basic") {
    return { url, oauth: { grant: "client_credentials", clientId: context.client_id, clientSecret: context.client_secret } };
  }
  if (scenario === "auth/client-credentials-jwt") {
    const keyFile = `${dir}/key.pem`;
    writeFileSync(keyFile, context.private_key_pem, { mode: 0o600 });
    const alg = context.signing_algorithm || "ES256";
    return { url, oauth: { grant: "client_credentials", clientId: context.client_id, privateKeyJwt: { keyFile, alg } } };
  }
  // As the suite's own client does: a metadata document URL, used where the server takes one.
  if (scenario.startsWith("auth/")) return { url, oauth: { clientMetadataUrl: CIMD_URL } };
  return { url };
}

/** The command that shows the scenario's server works: a list, or a call of the tool it checks. */
function useArgs(scenario: string): string[] {
  if (scenario === "initialize" || scenario.startsWith("auth/client-credentials") || scenario.startsWith("auth/cross-app")) {
    return ["tools", "tb"];
  }
  if (scenario === "tools_call") return ["call", "tb", "srv", "add_numbers", '{"a": 5, "b": 3}'];
  if (scenario === "sse-retry") return ["call", "tb", "srv", "test_reconnection"];
  return ["call", "tb", "srv", "test-tool"];
}

/** Client credentials need no login: `auth` only shows they work, then the workbench gets its own token. */
const needsLogin = (scenario: string) => scenario.startsWith("auth/") && !scenario.startsWith("auth/cross-app");

async function main(): Promise<number> {
  const url = process.argv.at(-1)!;
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as Record<string, string>;
  // The server asks the client something mid-call: an SDK client in front answers, through the relay.
  if (scenario.startsWith("elicitation")) return await playElicitationDefaults(url, [workbench, ...workbenchArgs]);
  const dir = mkdtempSync(`${tmpdir()}/workbench-conformance-`);
  // The runner ends a client that takes too long with SIGTERM: clean up all the same.
  process.once("SIGTERM", () => {
    running?.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    process.exit(1);
  });
  try {
    const configPath = `${dir}/workbench-config.json`;
    const config = { toolboxes: { tb: { mcpServers: { srv: serverEntry(scenario, url, context, dir) } } } };
    writeFileSync(configPath, JSON.stringify(config, null, 2));
    const env = { WORKBENCH_AUTH_DIR: `${dir}/auth`, WORKBENCH_CONFIG: configPath };
    const say = (ran: Ran) => process.stderr.write(ran.output);
    if (needsLogin(scenario)) {
      const login = await run(["auth", "tb", "srv", "--no-browser", "--config", configPath], env);
      say(login);
      if (login.code !== 0) return 1;
    }
    let used = await run([...useArgs(scenario), "--config", configPath], env);
    say(used);
    // A login with more scopes, named by the failure: run once, as a user would.
    const stepUp = /run "(mcp-workbench auth [^"]*--scope [^"]*)"/.exec(used.output)?.[1];
    if (used.code !== 0 && stepUp) {
      const login = await run([...shellWords(stepUp).slice(1), "--no-browser"], env);
      say(login);
      if (login.code !== 0) return 1;
      used = await run([...useArgs(scenario), "--config", configPath], env);
      say(used);
    }
    return used.code === 0 ? 0 : 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exit(await main());
