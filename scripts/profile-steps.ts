/**
 * Issue 42: the samples of `bun scripts/profile-echo.ts --cpuprofile` summed by step of a relayed
 * call, as shares of all samples, one column per profile: `bun scripts/profile-steps.ts DIR...`
 * (each DIR holds one .cpuprofile). A sample counts for the step of the innermost frame of ours
 * (src/) on its stack, split further by the runtime's function it was in (JSON.parse, the pipe's
 * write, AbortController...). The profiler samples the JS thread's time, a blocked write included,
 * so the shares say where the thread is, not the CPU of the process's other threads.
 */
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/** Frames that belong to the start and open_toolbox, not to a call. */
const START_UP = ["/src/config/", "/src/cli/run.ts", "/src/tools/open-toolbox.ts", "/src/toolboxes/registry.ts"];

function stepOf(file: string, fn: string, leaf: string, startUp: boolean): string {
  const at = (prefix: string) => file.startsWith(prefix);
  if (startUp && !at("transport/") && !at("platform/")) return "start-up and open_toolbox (not per call)";
  if (file === "platform/bun.ts" && fn === "write") return "writing: the pipe's write and flush";
  const writing = at("transport/write-queue") || at("transport/byte-room") ||
    (at("transport/stream-transport") && (fn === "send" || fn === "#enqueue")) ||
    (at("transport/raw-json") && fn === "rawResponseFrame") || (at("transport/in-flight") && fn === "done");
  if (writing) return leaf === "stringify" || leaf === "encode" ? "writing: JSON.stringify, encode" : "writing: queue and frames";
  if (at("transport/stream-transport") && fn === "#deliver" && (leaf === "parse" || leaf === "decode")) return "reading: JSON.parse, decode";
  if (at("transport/")) return "reading: lines, checks, hand-on";
  if (at("upstream/tool-call-intake")) return leaf === "AbortController" ? "intake: AbortController" : "intake: serve";
  if (at("tools/dispatcher") || at("tools/use-tool") || at("upstream/era/gate")) return "dispatcher, use_tool, gate";
  const checks = at("tools/pipeline/") || at("toolboxes/pin-store") || at("toolboxes/offer") ||
    (at("toolboxes/server-slot") && fn === "trust") || (at("toolboxes/shared-server") && fn === "connected");
  if (checks) return "pipeline: resolve, pins, arguments, approval, call";
  if (at("downstream/call-lane") || at("downstream/idle-clock")) {
    if (leaf === "addEventListener" || leaf === "removeEventListener") return "lane: abort listener";
    if (leaf === "setTimeout" || leaf === "clearTimeout") return "lane: timers";
    return "lane: call, claim, settle";
  }
  if (at("downstream/") || at("toolboxes/")) return "slot, shared server, server session, link";
  if (file === "") return "runtime alone (streams, promise jobs)";
  return "other";
}

function shares(dir: string): { total: number; by: Map<string, number> } {
  const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
  if (!file) throw new Error(`No .cpuprofile in '${dir}'`);
  const profile = JSON.parse(readFileSync(`${dir}/${file}`, "utf8")) as { nodes: ProfileNode[]; samples: number[] };
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const by = new Map<string, number>();
  for (const id of profile.samples) {
    let file = "";
    let fn = "";
    let startUp = false;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { url, functionName } = nodes.get(at)!.callFrame;
      if (!file && url.includes("/src/")) [file, fn] = [url.replace(/.*\/src\//, ""), functionName];
      if (functionName === "require" || START_UP.some((part) => url.includes(part))) startUp = true;
    }
    const step = stepOf(file, fn, nodes.get(id)!.callFrame.functionName, startUp);
    by.set(step, (by.get(step) ?? 0) + 1);
  }
  return { total: profile.samples.length, by };
}

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  console.error("usage: profile-steps.ts DIR...");
  process.exit(2);
}
const columns = dirs.map(shares);
const steps = [...new Set(columns.flatMap((column) => [...column.by.keys()]))]
  .sort((a, b) => (columns[0].by.get(b) ?? 0) - (columns[0].by.get(a) ?? 0));
console.log(`| step | ${dirs.join(" | ")} |`);
console.log(`| --- |${dirs.map(() => " --- |").join("")}`);
for (const step of steps) {
  console.log(`| ${step} | ${columns.map((column) => `${(100 * (column.by.get(step) ?? 0) / column.total).toFixed(1)}%`).join(" | ")} |`);
}
console.log(`| samples | ${columns.map((column) => column.total).join(" | ")} |`);
