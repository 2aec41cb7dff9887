/**
 * Results the model can page (issue 28): a result over maxResultTokens is cut to a first page that
 * fits, with a last text item saying how much was left out and how to read on (use_tool on the
 * reserved server `workbench`, tool `read_result`); the whole is kept in the session's ResultStore.
 * structuredContent over the cap is not cut silently: it leaves the result and, unless a text item
 * already holds the same JSON, its JSON becomes the last item of what can be read on.
 * use_tool applies pageResult after callTool; run_code applies it to its own result.
 */
import type { CallToolResult, ContentBlock } from "../protocol/sdk.ts";
import { DEFAULT_SETTINGS, WORKBENCH_SERVER, type WorkbenchConfig } from "../config/index.ts";
import { utf8Bytes } from "./token-estimate.ts";
import { isInputRequired } from "../protocol/wire.ts";
import { fitted, type KeptResult, type KeptResults, MAX_AGE_MS, MAX_BYTES } from "./result-store.ts";
import { pageFrom } from "./result-pages.ts";
import { rawJsonOf } from "../transport/raw-json.ts";
import { holdingBytes } from "../transport/held-bytes.ts";
import { FIRST_PAGE_ITEMS, RESULT_BYTES, RESULT_PAGED, type Span, WORKBENCH_TOOLBOX } from "../telemetry/index.ts";

export const READ_RESULT = "read_result";
/** Bytes of a page kept for its last item, the note (which holds a toolbox's name and the call to make). */
const NOTE_BYTES = 1_024;

/** True when the result's estimated tokens (estimateTokens) are over `limit`; 0 is no limit. */
export function overLimit(result: CallToolResult, limit: number): boolean {
  if (limit <= 0) return false;
  // The texts alone over the cap decide it without copying a large result into JSON.
  let characters = 0;
  for (const item of result.content ?? []) if (item.type === "text") characters += item.text.length;
  if (characters > limit * 4) return true;
  // Most results are a few texts far under the cap: decided by a bound, not by a copy into JSON
  // on every call (issue 42: a result under the cap costs no more than a test).
  const bound = textsOnlyBound(result);
  if (bound !== undefined && bound <= limit * 4) return false;
  const json = JSON.stringify(result);
  // A character is 1 to 3 bytes: most results are decided without counting bytes.
  if (json.length > limit * 4) return true;
  if (json.length * 3 <= limit * 4) return false;
  return Math.ceil(utf8Bytes(json) / 4) > limit;
}

/**
 * At most how many bytes the result's compact JSON takes, when it is plain objects holding nothing
 * but text items (`type` and `text`) and `isError`; undefined for any other shape. A string's JSON
 * takes at most 6 bytes per UTF-16 unit (`\u001f`; a character written as it is takes 3 at most),
 * and what is around the texts (keys, quotes, brackets, commas, isError) under 32 bytes per item
 * and 64 for the rest.
 */
function textsOnlyBound(result: CallToolResult): number | undefined {
  if (!isPlainObject(result)) return undefined;
  for (const key in result) {
    if (key === "isError" ? typeof result.isError !== "boolean" : key !== "content") return undefined;
  }
  const content: unknown = result.content;
  if (!Array.isArray(content)) return undefined;
  let bound = 64;
  // By index, as JSON.stringify reads an array.
  for (let index = 0; index < content.length; index++) {
    const item: unknown = content[index];
    if (!isPlainObject(item) || item.type !== "text" || typeof item.text !== "string") return undefined;
    for (const key in item) if (key !== "type" && key !== "text") return undefined;
    bound += 32 + 6 * item.text.length;
  }
  return bound;
}

/**
 * An object JSON.stringify writes as its enumerable members and nothing else: a plain object or
 * one without a prototype, with no toJSON of its own (enumerable or not).
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Object.hasOwn(value, "toJSON")) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * The result as the model gets it: unchanged when within `limit` tokens (0: never cut) or when
 * there is no store to keep the rest in, else its first page with a note, the whole kept in `store`
 * (an event of `span`, the client's request, with telemetry on).
 */
export async function pageResult(
  result: CallToolResult,
  store: KeptResults | undefined,
  limit: number,
  toolbox: string,
  span?: Span,
): Promise<CallToolResult> {
  if (!store || limit <= 0) return result;
  // A result still in the server's bytes is measured by them, unparsed: most are far under the cap,
  // and a large one relayed whole must not be parsed and copied (see transport/raw-json.ts).
  const raw = rawJsonOf(result);
  if (raw && raw.reduce((bytes, piece) => bytes + piece.length, 0) <= limit * 4) return result;
  // A 2026-07-28 input_required is a question for the client, not a result to read: never cut.
  if (isInputRequired(result) || !overLimit(result, limit)) return result;
  const items: ContentBlock[] = [...(result.content ?? [])];
  let structured = "";
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent);
    const mirrored = items.some((item) => item.type === "text" && sameJson(item.text, json));
    if (!mirrored) items.push({ type: "text", text: json });
    structured = mirrored
      ? " structuredContent was left out: a text item holds the same JSON."
      : " structuredContent was left out: its JSON is the last text of the result.";
  }
  // A store that cannot keep it (a shared one, unreachable) costs the rest of the result, never the
  // call: the tool has run, and an error now would have the client run it again.
  const kept = await Promise.resolve(store.keep(toolbox, limit, items)).catch(() => undefined);
  const shown = kept ?? { id: "", toolbox, limit, ...fitted(items, MAX_BYTES), touched: 0 };
  const page = pageFrom(shown, 0, pageBudget(limit));
  span?.addEvent(RESULT_PAGED, { [WORKBENCH_TOOLBOX]: toolbox, [RESULT_BYTES]: shown.bytes, [FIRST_PAGE_ITEMS]: page.content.length });
  const rest = kept ? progress(kept, 0, page.end) : `Positions 0 to ${page.end} of ${shown.starts.at(-1)} shown; ` +
    "the rest could not be kept to read on (the session's store cannot be reached now): call the tool again later for it.";
  const note = `This result is over maxResultTokens (${limit}).${structured} ${rest}`;
  const { structuredContent: _, content: __, ...others } = result;
  // Until the page is written, it weighs what the store keeps of the result (see transport/held-bytes.ts).
  return holdingBytes({ ...others, content: [...page.content, { type: "text", text: note }] }, shown.bytes);
}

/** read_result's answer: the page of a kept result from `offset`, with its note. */
export function readPage(kept: KeptResult, offset: number): CallToolResult {
  const page = pageFrom(kept, offset, pageBudget(kept.limit));
  return { content: [...page.content, { type: "text", text: progress(kept, offset, page.end) }] };
}

/** The cap of a use_tool result of this server: its maxResultTokens, set on it or at the top of the file. */
export function resultLimit(config: WorkbenchConfig, toolbox: string, server: string): number {
  const servers = config.toolboxes[toolbox]?.mcpServers;
  return servers && Object.hasOwn(servers, server) ? servers[server].maxResultTokens : DEFAULT_SETTINGS.maxResultTokens;
}

/**
 * The cap of a result that belongs to a toolbox rather than one server (run_code's): the smallest
 * of its servers' (0, never cut, counts as no cap), the default when it has none.
 */
export function toolboxResultLimit(config: WorkbenchConfig, toolbox: string): number {
  const limits = Object.values(config.toolboxes[toolbox]?.mcpServers ?? {}).map((server) => server.maxResultTokens);
  if (limits.length === 0) return DEFAULT_SETTINGS.maxResultTokens;
  const capped = limits.filter((limit) => limit > 0);
  return capped.length === 0 ? 0 : Math.min(...capped);
}

function pageBudget(limit: number): number {
  return Math.max(limit * 4 - NOTE_BYTES, 256);
}

/** Where the page stands in the whole, and the call that reads on. */
function progress(kept: KeptResult, from: number, end: number): string {
  const total = kept.starts.at(-1)!;
  const mixed = kept.items.some((item) => item.type !== "text");
  const lost = kept.dropped === 0
    ? ""
    : ` The last ${kept.dropped} characters were over what the workbench keeps for a session and are gone.`;
  const shown = mixed
    ? `Result '${kept.id}': positions ${from} to ${end} of ${total} shown (a character of text counts 1, and so does an item that is ` +
      `not text).${lost}`
    : `Result '${kept.id}': characters ${from} to ${end} of ${total} shown.${lost}`;
  if (end >= total) return `${shown} This is the end of it.`;
  const call = {
    tool: { toolbox: kept.toolbox, server: WORKBENCH_SERVER, name: READ_RESULT },
    arguments: { id: kept.id, offset: end },
  };
  return `${shown} ${total - end} left: read on with use_tool ${JSON.stringify(call)} ` +
    `(kept ${MAX_AGE_MS / 60_000} minutes after the last read).`;
}

function sameJson(text: string, json: string): boolean {
  if (text === json) return true;
  // Pretty-printed JSON is never shorter than compact: most texts are told apart without parsing.
  if (text.length < json.length) return false;
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}
