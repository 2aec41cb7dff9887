/**
 * A client that stops reading while paged results pile up (issue 54): raw newline-delimited
 * JSON-RPC over stdio (2025-11-25): initialize, open a toolbox with one stdio echo server, one
 * warm-up `use_tool` echo of a 1 MiB text (answered as a page), then stop reading the workbench's
 * stdout, write all the calls at once (each a 1 MiB text, so each result is cut into a page), wait,
 * and read again. The workbench's RSS is sampled every 50 ms until the last call is answered (its
 * VmHWM read last); then each answer is counted and the rest of the results still kept is read
 * with `read_result`. Used by
 * tests/e2e/paged-unread.test.ts and `bun scripts/paged-unread.ts` (the figures).
 */
import { startRawChild } from "./raw-child.ts";
import { residentBytes } from "./memory.ts";

export interface PagedUnreadOptions {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** How many calls are written at once (300 in the issue). */
  calls: number;
  /** Characters of each call's text (1 MiB in the issue). */
  textChars: number;
  /** How long the client does not read after writing (12 s in the issue). */
  stallMs: number;
  /** What the server's echo answers for a text (the fixture's is `<label>: <text>`). */
  expected: (text: string) => string;
  toolbox: string;
  server: string;
  /** False when results are not cut (maxResultTokens 0): the warm-up is not a page, nor the answers. */
  paged?: boolean;
}

export interface PagedUnreadRun {
  /** VmRSS once the warm-up call was answered. */
  baselineBytes: number;
  /** The peak from the stall to the last answer: the largest VmRSS sample and the VmHWM then. */
  peakBytes: number;
  answeredOnce: number;
  /** Ids never answered, answered twice, or answered with a wrong first page (the first few). */
  missing: number[];
  twice: number[];
  wrong: string[];
  /** Answers cut into a page with a read_result note. */
  paged: number;
  /** Results read to their end with read_result and equal to what the server answered. */
  readWhole: number;
  /** Results read_result no longer had (pushed out of the session's bounded store). */
  gone: number;
  /** Results read_result answered wrongly (the first few). */
  readWrong: string[];
  drainMs: number;
}

const FIRST_ID = 1_000;
const MiB = 1024 * 1024;

/** The text of call `id`: its id first, so that a page is told apart from another call's. */
export function callText(id: number, chars: number): string {
  return `${id}:`.padEnd(chars, "abcdefghij");
}

export async function pagedUnread(options: PagedUnreadOptions): Promise<PagedUnreadRun> {
  const replies = new Map<unknown, Record<string, any>[]>();
  const { child, until: untilEvery } = startRawChild(options, (reply) => {
    if (reply.id !== undefined) replies.set(reply.id, [...replies.get(reply.id) ?? [], reply]);
  });
  const line = (id: unknown, name: string, args: Record<string, unknown>) =>
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }) + "\n";
  const useTool = (id: unknown, name: string, args: Record<string, unknown>, server = options.server) =>
    line(id, "use_tool", { tool: { toolbox: options.toolbox, server, name }, arguments: args });
  const until = (done: () => boolean, boundMs: number, what: string) => untilEvery(done, boundMs, what, 50);
  const ask = async (id: string, text: string) => {
    child.stdin!.write(text);
    await until(() => replies.has(id), 30_000, `answer to ${id}`);
    return replies.get(id)![0];
  };
  try {
    const clientInfo = { name: "paged-unread", version: "1" };
    child.stdin!.write(
      JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo } }) + "\n",
    );
    await until(() => replies.has("init"), 30_000, "initialize answer");
    child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
    await ask("open", line("open", "open_toolbox", { toolbox_name: options.toolbox }));
    const warm = await ask("warm", useTool("warm", "echo", { text: callText(0, options.textChars) }));
    if (options.paged !== false && !JSON.stringify(warm).includes("read_result")) throw new Error(`The warm-up answer is not a page: ${JSON.stringify(warm).slice(0, 300)}`);
    const baselineBytes = residentBytes(child.pid!);

    child.stdout!.pause();
    let peakBytes = 0;
    const sampler = setInterval(() => (peakBytes = Math.max(peakBytes, residentBytes(child.pid!))), 50);
    // All at once: one write, which the pipe takes as the workbench reads it.
    let all = "";
    for (let id = FIRST_ID; id < FIRST_ID + options.calls; id++) all += useTool(id, "echo", { text: callText(id, options.textChars) });
    child.stdin!.write(all);
    all = "";
    await new Promise((resolve) => setTimeout(resolve, options.stallMs));

    const resumed = Date.now();
    child.stdout!.resume();
    const answered = () => {
      let count = 0;
      for (let id = FIRST_ID; id < FIRST_ID + options.calls; id++) if (replies.has(id)) count++;
      return count;
    };
    await until(() => answered() === options.calls, 120_000, `answer to all ${options.calls} calls`);
    const drainMs = Date.now() - resumed;
    clearInterval(sampler);
    // The peak of the whole load: the stall, and the drain once the client reads again (issue 54).
    peakBytes = Math.max(peakBytes, residentBytes(child.pid!, "VmHWM"));
    // A second answer would come right behind the first.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const run: PagedUnreadRun = {
      baselineBytes, peakBytes, answeredOnce: 0, missing: [], twice: [], wrong: [], paged: 0, readWhole: 0, gone: 0, readWrong: [], drainMs,
    };
    const notes = new Map<number, { resultId: string; first: string }>();
    for (let id = FIRST_ID; id < FIRST_ID + options.calls; id++) {
      const got = replies.get(id) ?? [];
      if (got.length === 0 && run.missing.length < 5) run.missing.push(id);
      if (got.length > 1 && run.twice.length < 5) run.twice.push(id);
      if (got.length !== 1) continue;
      run.answeredOnce++;
      const content: { text?: string }[] = got[0].result?.content ?? [];
      const first = content[0]?.text ?? "";
      const resultId = /Result '([^']+)'/.exec(content.at(-1)?.text ?? "")?.[1];
      if (options.paged === false && first === options.expected(callText(id, options.textChars))) continue;
      if (!options.expected(callText(id, options.textChars)).startsWith(first) || first === "" || !resultId) {
        if (run.wrong.length < 5) run.wrong.push(JSON.stringify(got[0]).slice(0, 300));
        continue;
      }
      run.paged++;
      notes.set(id, { resultId, first });
    }
    replies.clear();
    await readTheRest(notes, options, run, async (id, args) => (await ask(id, useTool(id, "read_result", args, "workbench"))).result);
    return run;
  } finally {
    child.stdin!.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    if (child.exitCode === null) await new Promise((resolve) => child.once("exit", resolve));
    clearTimeout(timer);
  }
}

/** Reads each result on from its first page to its end; a result the store no longer has counts as gone. */
async function readTheRest(
  notes: Map<number, { resultId: string; first: string }>,
  options: PagedUnreadOptions,
  run: PagedUnreadRun,
  read: (id: string, args: Record<string, unknown>) => Promise<{ content?: { text?: string }[]; isError?: boolean }>,
): Promise<void> {
  let ask = 0;
  for (const [id, { resultId, first }] of notes) {
    const whole = options.expected(callText(id, options.textChars));
    let text = first;
    let gone = false;
    // A page is about 100 KB at the default cap: a bound well past the pages of 1 MiB.
    for (let pages = 0; pages < 10 * Math.ceil(whole.length / MiB) + 64; pages++) {
      const result = await read(`read-${ask++}`, { id: resultId, offset: text.length });
      const content = result.content ?? [];
      const note = content.at(-1)?.text ?? "";
      if (result.isError) {
        gone = text === first && note.includes("not found");
        if (!gone && run.readWrong.length < 5) run.readWrong.push(`${id}: ${note.slice(0, 200)}`);
        break;
      }
      text += content.slice(0, -1).map((item) => item.text ?? "").join("");
      if (note.includes("This is the end of it.")) break;
    }
    if (gone) run.gone++;
    else if (text === whole) run.readWhole++;
    else if (run.readWrong.length < 5) run.readWrong.push(`${id}: read ${text.length} characters of ${whole.length}`);
  }
}
