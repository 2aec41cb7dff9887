/**
 * A client that stops reading (issue 33): opens a toolbox, stops reading the workbench's stdout,
 * writes many `use_tool` calls, and reads the workbench's peak RSS while it waits; then reads
 * again and counts each call's answers. Used by tests/e2e/stalled-client.test.ts and by
 * `bun scripts/bench/stalled-cli.ts` for the figures (peak RSS, bytes per call waiting).
 */
import { startRawChild } from "./raw-child.ts";
import { once } from "node:events";
import { residentBytes } from "./memory.ts";

export interface StalledOptions {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** How many calls are written without reading. */
  calls: number;
  /** The text each call echoes (its id leads it). */
  text: (id: number) => string;
  /** The tool called through use_tool, and the arguments it takes for a text. */
  tool: { toolbox: string; server: string; name: string };
  argumentsFor: (text: string) => Record<string, unknown>;
  /** What the answer's first text must be for a text. */
  expected: (text: string) => string;
  /** The peak is read once it has not grown for this long (or at measureBoundMs). */
  steadyMs?: number;
  measureBoundMs?: number;
  /** How long the answers may take once the client reads again. */
  answerBoundMs?: number;
}

export interface StalledRun {
  /** VmRSS after the toolbox opened and one call was answered. */
  baselineBytes: number;
  /** VmHWM while nothing was read. */
  peakBytes: number;
  /** How many calls the client had written when the peak was read (the rest waited in the pipe). */
  written: number;
  answeredOnce: number;
  /** Ids never answered, answered twice, or answered with the wrong content (the first few). */
  missing: number[];
  twice: number[];
  wrong: string[];
  /** From resuming to the last answer. */
  drainMs: number;
}

/** Ids of the calls start here: past the handshake's and the warm-up's. */
const FIRST_ID = 1_000;
/** Calls are written in chunks of this many lines. */
const CHUNK = 500;

export async function stalledClient(options: StalledOptions): Promise<StalledRun> {
  const { calls, tool } = options;
  const counts = new Uint8Array(calls);
  const wrong: string[] = [];
  const others = new Map<unknown, unknown>();
  let answered = 0;
  const { child, until } = startRawChild(options, (reply) => {
    const index = typeof reply.id === "number" ? reply.id - FIRST_ID : -1;
    if (index < 0 || index >= calls) {
      others.set(reply.id, reply);
      return;
    }
    if (counts[index]++ === 0) answered++;
    const got = reply.result?.content?.[0]?.text;
    if (got !== options.expected(options.text(reply.id)) && wrong.length < 5) wrong.push(JSON.stringify(reply).slice(0, 300));
  });
  const write = (line: unknown) => child.stdin!.write(JSON.stringify(line) + "\n");
  const callLine = (id: number) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "use_tool", arguments: { tool, arguments: options.argumentsFor(options.text(id)) } },
    }) + "\n";
  try {
    write({ jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "stalled", version: "1" } } });
    write({ jsonrpc: "2.0", method: "notifications/initialized" });
    await until(() => others.has("init"), 30_000, "initialize answer");
    write({ jsonrpc: "2.0", id: "open", method: "tools/call", params: { name: "open_toolbox", arguments: { toolbox_name: tool.toolbox } } });
    await until(() => others.has("open"), 60_000, "open_toolbox answer");
    child.stdin!.write(callLine(FIRST_ID - 1));
    await until(() => others.has(FIRST_ID - 1), 30_000, "first call's answer");
    const baselineBytes = residentBytes(child.pid!);

    child.stdout!.pause();
    let written = 0;
    const writing = (async () => {
      for (let id = FIRST_ID; id < FIRST_ID + calls && child.exitCode === null; id += CHUNK) {
        let chunk = "";
        for (let each = id; each < Math.min(id + CHUNK, FIRST_ID + calls); each++) chunk += callLine(each);
        const flowing = child.stdin!.write(chunk);
        written = Math.min(id + CHUNK, FIRST_ID + calls) - FIRST_ID;
        if (!flowing) await once(child.stdin!, "drain");
      }
    })();
    const steadyMs = options.steadyMs ?? 3_000;
    const began = Date.now();
    let peakBytes = 0;
    let lastWritten = -1;
    let steadySince = Date.now();
    while (Date.now() - began < (options.measureBoundMs ?? 120_000) && Date.now() - steadySince < steadyMs) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const now = residentBytes(child.pid!, "VmHWM");
      if (now > peakBytes || written !== lastWritten) [peakBytes, lastWritten, steadySince] = [Math.max(now, peakBytes), written, Date.now()];
    }
    const writtenAtPeak = written;

    const resumed = Date.now();
    child.stdout!.resume();
    await writing;
    await until(() => answered === calls, options.answerBoundMs ?? 120_000, `answer to all ${calls} calls (${answered} so far)`);
    const drainMs = Date.now() - resumed;
    // A second answer would come right behind the first.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const missing: number[] = [];
    const twice: number[] = [];
    counts.forEach((count, index) => {
      if (count === 0 && missing.length < 5) missing.push(index + FIRST_ID);
      if (count > 1 && twice.length < 5) twice.push(index + FIRST_ID);
    });
    return { baselineBytes, peakBytes, written: writtenAtPeak, answeredOnce: counts.filter((count) => count === 1).length, missing, twice, wrong, drainMs };
  } finally {
    child.stdin!.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    if (child.exitCode === null) await once(child, "exit");
    clearTimeout(timer);
  }
}
