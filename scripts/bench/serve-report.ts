/** Figure 10's rows in the figures table and its targets (issue 30): what serving over HTTP costs. */
import type { ServeFigures } from "./serve.ts";
import { round } from "./stats.ts";

/** Issue 30's goals: HTTP adds under 1 ms to an echo's p50; an idle session costs under 256 KiB. */
export const SERVE_OVERHEAD_GOAL_US = 1_000;
export const IDLE_SESSION_GOAL_KIB = 256;

const fmt = (value: number, digits = 0) => Number.isFinite(value) ? String(round(value, digits)) : "-";

/** Rows of [figure, workbench, direct, compared]: here "direct" is the same workbench over stdio. */
export function serveRows(serve: ServeFigures | undefined): string[][] {
  if (!serve) return [];
  const { echo, throughput, idle, firstAnswerMs } = serve;
  return [
    [`10 served over HTTP: echo p50, µs (vs stdio, ${echo.calls.workbench} calls)`, fmt(echo.p50Us.workbench), fmt(echo.p50Us.direct), `+${fmt(echo.overheadP50Us)} µs`],
    ["  served over HTTP: echo p99, µs (vs stdio)", fmt(echo.p99Us.workbench), fmt(echo.p99Us.direct), `+${fmt(echo.p99Us.workbench - echo.p99Us.direct)} µs`],
    [`  ${throughput.clients} clients x ${throughput.inFlight} in flight, calls/s (${throughput.calls} calls)`, fmt(throughput.callsPerSecond), "", ""],
    [`  RSS per idle session, KiB (${idle.sessions} sessions)`, fmt(idle.bytesPerSession / 1024, 1), "", ""],
    [`  new session to first echo, ms p50 / p95 (${firstAnswerMs.sessions})`, `${fmt(firstAnswerMs.p50, 1)} / ${fmt(firstAnswerMs.p95, 1)}`, "", ""],
  ];
}

/** The goals as the report's checks (the same shape as report.ts's Check). */
export function serveChecks(serve: ServeFigures | undefined): { target: string; value: string; limit: string; status: "PASS" | "MISS" | "n/a" }[] {
  if (!serve) return [];
  const overhead = serve.echo.overheadP50Us;
  const idleKiB = serve.idle.bytesPerSession / 1024;
  return [
    { target: "echo p50 over HTTP vs stdio", value: `+${fmt(overhead)} µs`, limit: `< ${SERVE_OVERHEAD_GOAL_US} µs`, status: overhead < SERVE_OVERHEAD_GOAL_US ? "PASS" : "MISS" },
    { target: "RSS per idle HTTP session", value: `${fmt(idleKiB, 1)} KiB`, limit: `< ${IDLE_SESSION_GOAL_KIB} KiB`, status: idleKiB < IDLE_SESSION_GOAL_KIB ? "PASS" : "MISS" },
  ];
}
