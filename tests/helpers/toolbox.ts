/** Small helpers for the open_toolbox / use_tool end-to-end tests. */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import type { CallToolResult } from "./sdk.ts";
import { fixtureServer } from "./runtime.ts";
import { fixtureTools } from "../fixtures/fixture-tools.ts";
import { type Session, tempDir, textOf } from "./workbench.ts";

/** Upper bound for one meta-tool call (the SDK's own default is 60 s). */
export const CALL_TIMEOUT_MS = 20_000;

/** The fixture's tool names, in the order its tools/list gives them. */
export const FIXTURE_TOOLS = fixtureTools("").map((tool) => tool.name);

/** A config entry for our fixture server, told apart from others by its label. */
export function fx(label: string, extra: Record<string, unknown> = {}, env: Record<string, string> = {}) {
  return fixtureServer("fixture-server.ts", { env: { FIXTURE_LABEL: label, ...env }, ...extra });
}

/**
 * A file where fixture servers given `env: spawnLog.env` note each start, as "<label> <pid>":
 * counting spawns catches a server started twice and closed once, which counting live ones misses.
 */
export function spawnLog() {
  const path = `${tempDir()}/spawns.log`;
  return {
    env: { FIXTURE_SPAWN_LOG: path },
    /** Each start so far, sorted. */
    spawned: (): string[] => existsSync(path) ? readFileSync(path, "utf8").trim().split("\n").sort() : [],
  };
}

/**
 * A file where fixture servers given `env: requestLog().env` note the method of each request as it
 * arrives: a test acts on a call once the server has it, without asking for progress (which
 * would change how the call is answered) and without sleeping a guessed time.
 */
export function requestLog() {
  const path = `${tempDir()}/requests.log`;
  return {
    env: { FIXTURE_METHOD_LOG: path },
    /** How many requests of this method the servers got so far. */
    count: (method: string): number =>
      existsSync(path) ? readFileSync(path, "utf8").split("\n").filter((line) => line === method).length : 0,
  };
}

/** Calls a meta-tool with a bounded wait. */
export function call(session: Session, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return session.client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS }) as Promise<
    CallToolResult
  >;
}

export function openToolbox(session: Session, toolbox_name: string): Promise<CallToolResult> {
  return call(session, "open_toolbox", { toolbox_name });
}

/** use_tool with the structured identifier; `args` undefined means no `arguments` field at all. */
export function useTool(
  session: Session,
  toolbox: string,
  server: string,
  name: string,
  args?: Record<string, unknown>,
): Promise<CallToolResult> {
  return call(session, "use_tool", { tool: { toolbox, server, name }, ...(args !== undefined && { arguments: args }) });
}

// The product's own result types: the tests check values, the compiler checks the shapes agree.
export type { OpenToolboxResult as Opened, ToolInfo } from "../../src/tools/open-toolbox.ts";
import type { OpenToolboxResult as Opened } from "../../src/tools/open-toolbox.ts";

/** Asserts a successful open_toolbox result (one compact JSON text, no isError) and parses it. */
export function opened(result: CallToolResult): Opened {
  assert.equal("isError" in result, false, `expected success, got ${JSON.stringify(result)}`);
  assert.equal(result.content.length, 1);
  const text = textOf(result);
  const value = JSON.parse(text) as Opened;
  assert.equal(text, JSON.stringify(value), "the result is compact JSON");
  return value;
}

/** Asserts a failed meta-tool call (isError: true, one text block) and returns its text. */
export function errorText(result: CallToolResult): string {
  assert.equal(result.isError, true, `expected isError, got ${JSON.stringify(result)}`);
  assert.equal(result.content.length, 1, JSON.stringify(result));
  return textOf(result);
}

/** Asserts a successful result with exactly one text block and returns the text. */
export function okText(result: CallToolResult): string {
  assert.equal("isError" in result && result.isError, false, `expected success, got ${JSON.stringify(result)}`);
  assert.equal(result.content.length, 1, JSON.stringify(result));
  return textOf(result);
}

/** The tools of one server in an open_toolbox result. */
export function toolsOf(value: Opened, server: string): string[] {
  return value.tools.filter((tool) => tool.source_server === server).map((tool) => tool.name);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls until `check` gives what `done` accepts, instead of sleeping a guessed time; fails after
 * `timeoutMs` with the last value seen.
 */
export async function eventually<T>(
  what: string,
  check: () => T | Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (done(value)) return value;
    if (Date.now() > deadline) assert.fail(`Timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(value)}`);
    await sleep(25);
  }
}

/**
 * A call's first progress, awaited instead of sleeping a guessed time: give `onprogress` to the
 * call (the fixtures' `sleep` says it began with progress 0), then `await begun()` before acting
 * on the call in flight; fails after `timeoutMs` if it never came.
 */
export function firstProgress(what: string): { onprogress: () => void; begun: (timeoutMs?: number) => Promise<void> } {
  let onprogress!: () => void;
  const came = new Promise<void>((resolve) => (onprogress = () => resolve()));
  const begun = async (timeoutMs = 20_000) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`No progress within ${timeoutMs} ms: ${what} did not begin`)), timeoutMs);
    });
    try {
      await Promise.race([came, late]);
    } finally {
      clearTimeout(timer);
    }
  };
  return { onprogress, begun };
}
