/**
 * Idle sessions over HTTP (issue 42): a bare fetch client of one 2025-11-25 session, and the
 * resident memory of a `serve --http` before and with IDLE_SESSIONS sessions that only
 * initialized (initialize and `notifications/initialized`, no GET stream). One client may hold 256
 * sessions, so the configuration gets IDLE_CLIENTS clients with tokens, which the sessions take
 * in turn.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import type { BenchSetup } from "./setup.ts";
import { residentBytes } from "./memory.ts";
import { median } from "./stats.ts";

export const IDLE_SESSIONS = 1_000;
const IDLE_CLIENTS = 5;
const SETTLE_MS = 2_000;

/** Posts one message in a session; its answer (JSON, or an event stream's last data line). */
export type RawPost = (message: Record<string, unknown>) => Promise<unknown>;

export interface RawSession {
  /** Calls a tool; its result (a failed call throws). */
  call(params: unknown): Promise<unknown>;
  /** DELETE: the session ends. */
  end(): Promise<void>;
}

/** Opens a session with a bare fetch client. */
export async function rawSession(url: string, headers: Record<string, string> = {}): Promise<RawSession> {
  let id = 0;
  let session: string | null = null;
  const post: RawPost = async (message) => {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
        ...(session && { "mcp-session-id": session }),
        ...headers,
      },
      body: JSON.stringify(message),
    });
    session ??= response.headers.get("mcp-session-id");
    const text = await response.text();
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${text.slice(0, 200)}`);
    if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) return text ? JSON.parse(text) : undefined;
    const data = text.split("\n").filter((line) => line.startsWith("data: ")).at(-1);
    return data && JSON.parse(data.slice(6));
  };
  await post({ jsonrpc: "2.0", id: ++id, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  await post({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    call: async (params) => {
      const answer = await post({ jsonrpc: "2.0", id: ++id, method: "tools/call", params }) as { result?: { isError?: boolean } };
      if (!answer?.result || answer.result.isError) throw new Error(`A call failed: ${JSON.stringify(answer).slice(0, 200)}`);
      return answer.result;
    },
    end: async () => {
      const response = await fetch(url, { method: "DELETE", headers: { ...headers, ...(session && { "mcp-session-id": session }) } });
      await response.body?.cancel();
    },
  };
}

/** The bench's configuration with IDLE_CLIENTS token clients: its path and their tokens. */
export function idleConfig(setup: BenchSetup): { configPath: string; tokens: string[] } {
  const tokens = Array.from({ length: IDLE_CLIENTS }, (_, index) => `bench-idle-token-${index}`);
  const config = JSON.parse(readFileSync(setup.configPath, "utf8"));
  config.serve = {
    clients: Object.fromEntries(tokens.map((token, index) => [`idle${index}`, { tokenSha256: createHash("sha256").update(token).digest("hex"), toolboxes: ["*"] }])),
  };
  const configPath = `${setup.dir}/idle-config.json`;
  writeFileSync(configPath, JSON.stringify(config));
  return { configPath, tokens };
}

/**
 * VmRSS in bytes of the serving process at `pid` after 20 sessions opened and ended (DELETE), and
 * then with IDLE_SESSIONS idle ones; each the median of 5 samples after SETTLE_MS.
 */
export async function idleResident(url: string, pid: number, tokens: string[]): Promise<{ before: number; after: number }> {
  const settle = async () => {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const samples: number[] = [];
    for (let sample = 0; sample < 5; sample++) {
      samples.push(residentBytes(pid));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return median(samples);
  };
  const auth = (index: number) => ({ authorization: `Bearer ${tokens[index % tokens.length]}` });
  for (let index = 0; index < 20; index++) await (await rawSession(url, auth(index))).end();
  const before = await settle();
  for (let index = 0; index < IDLE_SESSIONS; index++) await rawSession(url, auth(index));
  return { before, after: await settle() };
}
