/** The results: their shape in JSON, the table, and the targets with PASS or MISS. */
import type { StartupFigures, OpenFigures } from "./startup.ts";
import type { LatencyFigures, ThroughputFigures } from "./calls.ts";
import type { BlobFigures } from "./blobs.ts";
import type { PeakFigures } from "./peak.ts";
import type { ContextFigures } from "./context.ts";
import type { Plan } from "./plan.ts";
import type { Target } from "./targets.ts";
import { MiB, round } from "./stats.ts";
import type { ServeFigures } from "./serve.ts";
import { serveChecks, serveRows } from "./serve-report.ts";

export interface Results {
  target: Target;
  quick: boolean;
  startedAt: string;
  durationS: number;
  machine: Record<string, string | number>;
  versions: Record<string, string>;
  plan: Plan;
  startup: StartupFigures;
  openToolbox: OpenFigures;
  latency: LatencyFigures;
  throughput: ThroughputFigures;
  blobs: BlobFigures;
  /** Figure 5's memory: peak RSS relaying one 32 MiB result (absent from runs before issue 15). */
  blobPeak?: PeakFigures;
  context: ContextFigures;
  /** Figure 9: sequential echo to a Streamable HTTP server (absent from runs before it existed). */
  http?: LatencyFigures;
  /** Figure 10: the workbench served over HTTP (absent from runs before issue 30). */
  serve?: ServeFigures;
  executableBytes?: number;
  checks?: Check[];
}

export interface Check {
  target: string;
  value: string;
  limit: string;
  status: "PASS" | "MISS" | "n/a";
}

/** Issue 15's limit on the executable's resident memory after initialize (tests/e2e/memory.test.ts too). */
export const MEMORY_AFTER_INITIALIZE_MIB = 45;

/** The targets. Start-up and memory are set for the Bun executable: other targets say n/a. */
export function checkTargets(results: Results): Check[] {
  const { latency, throughput, blobs, startup, openToolbox, context } = results;
  const binOnly = results.target === "bin" ? undefined : "n/a";
  const blob32 = blobs.sizes.find((size) => size.mib === 32);
  const overhead = latency.overheadP50Us;
  const rss = openToolbox.rssAfterInitializeMiB;
  const startupMs = startup.workbenchMs;
  const listRatio = context.openToolboxRatio;
  return [
    check("call overhead p50 over direct", `${fmt(overhead, 0)} µs`, "< 100 µs", overhead < 100),
    check("throughput at 64 in flight vs direct", percent(throughput.ratio), ">= 30%", throughput.ratio >= 0.3),
    check("32 MiB blob vs direct", `${fmt(blob32?.ratio ?? NaN)}x`, "<= 2x", (blob32?.ratio ?? Infinity) <= 2),
    check("blob time 32 MiB / 8 MiB", fmt(blobs.ratio32over8), "< 5", blobs.ratio32over8 < 5),
    check64(blobs),
    check("start-up (spawn to initialize)", `${fmt(startupMs, 1)} ms`, "< 60 ms (bin)", startupMs < 60, binOnly),
    ...(startup.modernMs === undefined ? [] : [
      check("start-up 2026-07-28 (spawn to server/discover)", `${fmt(startup.modernMs, 1)} ms`, "< 60 ms (bin)", startup.modernMs < 60, binOnly),
    ]),
    check(
      "memory after initialize",
      `${fmt(rss, 1)} MiB`,
      `< ${MEMORY_AFTER_INITIALIZE_MIB} MiB (bin)`,
      rss < MEMORY_AFTER_INITIALIZE_MIB,
      binOnly,
    ),
    // 2000 B before issue 14, which names the toolboxes in open_toolbox's description too (not every
    // client shows the instructions) and adds detail and tools: about 100 B more for these three.
    check("tools/list + instructions, 3 toolboxes", `${context.alwaysBytes} B`, "< 2200 B", context.alwaysBytes < 2200),
    check("open_toolbox response vs downstream tools", `${fmt(listRatio, 3)}x`, "<= 1.15x", listRatio <= 1.15),
    ...referenceChecks(context),
    checkPeak(results.blobPeak),
    ...serveChecks(results.serve),
  ];
}

/** Issue 14's targets, on the three reference servers: open_toolbox full and summary against their flat list. */
export function referenceChecks(context: ContextFigures): Check[] {
  const { fullRatio, summaryRatio } = context.reference;
  return [
    check("open_toolbox full vs flat list, reference servers", `${fmt(fullRatio, 3)}x`, "<= 0.8x", fullRatio <= 0.8),
    check("open_toolbox summary vs flat list, reference servers", `${fmt(summaryRatio, 3)}x`, "<= 0.15x", summaryRatio <= 0.15),
  ];
}

function check64(blobs: BlobFigures): Check {
  const blob64 = blobs.sizes.find((size) => size.mib === 64);
  if (!blob64) return { target: "64 MiB blob passes", value: "not run (--quick)", limit: "passes", status: "n/a" };
  return check("64 MiB blob passes", blob64.error ? "fails (see figure 5)" : "yes", "passes", !blob64.error);
}

function checkPeak(peak: PeakFigures | undefined): Check {
  const target = "peak RSS relaying a 32 MiB result";
  if (!peak) return { target, value: "not measured", limit: "< 150 MiB", status: "n/a" };
  return check(target, `${fmt(peak.peakMiB, 1)} MiB`, "< 150 MiB", peak.peakMiB < 150);
}

function check(target: string, value: string, limit: string, ok: boolean, override?: "n/a"): Check {
  return { target, value, limit, status: override ?? (ok ? "PASS" : "MISS") };
}

/** The figures as a table: workbench, direct baseline where there is one, and how they compare. */
export function figuresTable(results: Results): string {
  return table([
    ["figure", "workbench", "direct", "compared"],
    ...startupRows(results),
    ...callRows(results),
    ...blobRows(results),
    ...memoryRows(results),
    ...contextRows(results.context),
    executableRow(results.executableBytes),
    ...httpRows(results),
    ...serveRows(results.serve),
  ]);
}

function httpRows({ http }: Results): string[][] {
  if (!http) return [];
  return [
    [
      `9 Streamable HTTP echo p50, µs (${http.calls.workbench} calls)`,
      fmt(http.p50Us.workbench, 0),
      fmt(http.p50Us.direct, 0),
      `+${fmt(http.overheadP50Us, 0)} µs`,
    ],
    ["  Streamable HTTP echo p99, µs", fmt(http.p99Us.workbench, 0), fmt(http.p99Us.direct, 0), `+${fmt(http.p99Us.workbench - http.p99Us.direct, 0)} µs`],
  ];
}

function executableRow(bytes: number | undefined): string[] {
  return ["8 executable dist/mcp-workbench, MiB", bytes === undefined ? "not built" : fmt(bytes / MiB, 1), "", ""];
}

function startupRows({ startup, openToolbox: open, plan }: Results): string[][] {
  const gain = startup.workbenchMs - startup.fixtureMs;
  return [
    [
      `1 spawn to initialize, ms (median of ${plan.startupRuns})`,
      fmt(startup.workbenchMs, 1),
      fmt(startup.fixtureMs, 1),
      `+${fmt(gain, 1)} ms`,
    ],
    ...(startup.modernMs === undefined ? [] : [[`  spawn to server/discover, ms (median of ${plan.startupRuns})`, fmt(startup.modernMs, 1), "", ""]]),
    [`2 open_toolbox 1 server, ms (median of ${plan.openRuns})`, fmt(open.oneServerMs, 1), "", ""],
    [`  open_toolbox 8 servers, ms (median of ${plan.openRuns})`, fmt(open.eightServersMs, 1), "", ""],
  ];
}

function callRows({ latency, throughput, plan }: Results): string[][] {
  const { p50Us: p50, p99Us: p99 } = latency;
  const p99Gap = p99.workbench - p99.direct;
  const rate = throughput.callsPerSecond;
  return [
    [
      `3 sequential echo p50, µs (${latency.calls.workbench} calls)`,
      fmt(p50.workbench, 0),
      fmt(p50.direct, 0),
      `+${fmt(latency.overheadP50Us, 0)} µs`,
    ],
    ["  sequential echo p99, µs", fmt(p99.workbench, 0), fmt(p99.direct, 0), `+${fmt(p99Gap, 0)} µs`],
    [
      `4 echo, ${plan.inFlight} in flight, calls/s (${throughput.calls.workbench} calls)`,
      fmt(rate.workbench, 0),
      fmt(rate.direct, 0),
      `${percent(throughput.ratio)} of direct`,
    ],
  ];
}

function blobRows(results: Results): string[][] {
  const { blobs, plan } = results;
  const rows = blobs.sizes.map((size, index) => [
    `${index === 0 ? "5" : " "} blob ${size.mib} MiB, ms (median of ${plan.blobRepeats})`,
    size.error ? "failed" : fmt(size.workbenchMs, 0),
    fmt(size.directMs, 0),
    size.error ? lastClause(size.error) : `${fmt(size.ratio)}x`,
  ]);
  return [
    ...rows,
    ["  blob time 32 MiB / 8 MiB (linear: 4)", fmt(blobs.ratio32over8), fmt(directRatio(blobs)), ""],
    ...peakRows(results.blobPeak, plan),
  ];
}

function peakRows(peak: PeakFigures | undefined, plan: Plan): string[][] {
  if (!peak) return [];
  const label = `  peak RSS relaying ${peak.blobMiB} MiB, MiB (median of ${plan.peakRuns})`;
  return [[label, fmt(peak.peakMiB, 1), "", `from ${fmt(peak.beforeMiB, 1)} before the call`]];
}

/**
 * Growth per open toolbox: the first (`eight`, 8 fixtures) carries what every session pays once
 * (the SDK Client at work, the serving code compiled); the next (`mixed`, 8 servers) is the cost
 * of servers alone.
 */
function memoryRows({ openToolbox: open }: Results): string[][] {
  const grown = (from: number, to: number | undefined) => {
    const mib = (to ?? NaN) - from;
    return `+${fmt(mib, 1)} MiB, ${fmt(mib / 8, 2)} per server`;
  };
  const rows = [
    ["6 RSS after initialize, MiB", fmt(open.rssAfterInitializeMiB, 1), "", "workbench process alone"],
    ["  RSS after opening 8 fixtures (first toolbox), MiB", fmt(open.rssAfterOpenEightMiB, 1), "", grown(open.rssAfterInitializeMiB, open.rssAfterOpenEightMiB)],
  ];
  if (open.rssAfterOpenReferenceMiB === undefined) return rows;
  const reference = open.rssAfterOpenReferenceMiB;
  return [...rows, ["  then the reference toolbox (3 reference servers + 5 fixtures), MiB", fmt(reference, 1), "", grown(open.rssAfterOpenEightMiB, reference)]];
}

/** Figure 7 alone, for `bench --context`. */
export function contextTable(context: ContextFigures): string {
  return table([["figure", "workbench", "direct", "compared"], ...contextRows(context)]);
}

function contextRows(context: ContextFigures): string[][] {
  const withTokens = (bytes: number) => `${bytes} (~${Math.round(bytes / 4)} tok)`;
  const reference = context.reference;
  return [
    [
      `7 tools/list + instructions, bytes (${context.toolboxes} toolboxes)`,
      withTokens(context.alwaysBytes),
      "",
      `list ${context.toolsListBytes} + instructions ${context.instructionsBytes}`,
    ],
    [
      `  open_toolbox, 8 servers / ${context.downstreamTools} tools, bytes`,
      withTokens(context.openToolboxBytes),
      withTokens(context.downstreamToolsBytes),
      `${fmt(context.openToolboxRatio, 3)}x`,
    ],
    [
      `  open_toolbox full, 3 reference servers / ${reference.tools} tools, bytes`,
      withTokens(reference.fullBytes),
      withTokens(reference.flatBytes),
      `${fmt(reference.fullRatio, 3)}x of the flat list`,
    ],
    [
      "  open_toolbox summary, 3 reference servers, bytes",
      withTokens(reference.summaryBytes),
      withTokens(reference.flatBytes),
      `${fmt(reference.summaryRatio, 3)}x of the flat list`,
    ],
    [
      "  instructions, reference toolbox, bytes",
      `${reference.instructionsBytes} / ${reference.instructionsWithCountsBytes}`,
      "",
      "first start / with tool counts from the cache",
    ],
    [
      "  servers' own instructions in open_toolbox, bytes",
      withTokens(reference.serverInstructionsBytes),
      withTokens(reference.serverInstructionsBytes),
      "the same a direct client gets; left out of the ratios above",
    ],
  ];
}

export function checksTable(checks: Check[]): string {
  const rows = checks.map((check) => [check.target, check.value, check.limit, check.status]);
  return table([["target", "measured", "limit", "result"], ...rows]);
}

function directRatio(blobs: BlobFigures): number {
  const at = (mib: number) => blobs.sizes.find((size) => size.mib === mib)?.directMs ?? NaN;
  return at(32) / at(8);
}

/** The reason at the end of a chain of "context: reason" messages. */
function lastClause(message: string): string {
  return message.slice(message.lastIndexOf(": ") + 2).slice(0, 80);
}

const percent = (ratio: number) => `${fmt(ratio * 100, 0)}%`;

function fmt(value: number, digits = 2): string {
  return Number.isFinite(value) ? String(round(value, digits)) : "-";
}

/** Plain text columns: the first left-aligned, the others right-aligned. */
function table(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length)));
  const line = (row: string[]) =>
    row.map((cell, column) => column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])).join("  ");
  const rule = widths.map((width) => "-".repeat(width)).join("  ");
  return [line(rows[0]), rule, ...rows.slice(1).map(line)].join("\n");
}
