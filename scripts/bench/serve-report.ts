/** Figure 10's rows in the figures table and its targets (issue 30): what serving over HTTP costs. */
import type { ServeFigures } from "./serve.ts";
import { MiB, round } from "./stats.ts";

/**
 * Issue 42's goals (issue 30's were 1 ms and 256 KiB a session): HTTP adds at most 150 µs to an
 * echo's p50; 8 clients × 8 in flight make at least 10,000 calls/s; 1,000 idle sessions add at
 * most 50 MiB.
 */
export const SERVE_OVERHEAD_GOAL_US = 150;
export const SERVE_THROUGHPUT_GOAL = 10_000;
export const IDLE_SESSIONS_GOAL_MIB = 50;

const fmt = (value: number, digits = 0) => Number.isFinite(value) ? String(round(value, digits)) : "-";

/** Rows of [figure, workbench, direct, compared]: here "direct" is the same workbench over stdio. */
export function serveRows(serve: ServeFigures | undefined): string[][] {
  if (!serve) return [];
  const { echo, throughput, idle, firstAnswerMs } = serve;
  return [
    [`10 served over HTTP: echo p50, µs (vs stdio, ${echo.calls.workbench} calls)`, fmt(echo.p50Us.workbench), fmt(echo.p50Us.direct), `+${fmt(echo.overheadP50Us)} µs`],
    ["  served over HTTP: echo p99, µs (vs stdio)", fmt(echo.p99Us.workbench), fmt(echo.p99Us.direct), `+${fmt(echo.p99Us.workbench - echo.p99Us.direct)} µs`],
    [`  ${throughput.clients} clients x ${throughput.inFlight} in flight, calls/s (${throughput.calls} calls)`, fmt(throughput.callsPerSecond), "", ""],
    [`  RSS with ${idle.sessions} idle sessions, MiB (added by them)`, `${fmt(idle.residentBytes / MiB, 1)} (+${fmt(idle.addedBytes / MiB, 1)})`, "", ""],
    [`  RSS per idle session, KiB (${idle.sessions} sessions)`, fmt(idle.bytesPerSession / 1024, 1), "", ""],
    [`  new session to first echo, ms p50 / p95 (${firstAnswerMs.sessions})`, `${fmt(firstAnswerMs.p50, 1)} / ${fmt(firstAnswerMs.p95, 1)}`, "", ""],
  ];
}

/** The goals as the report's checks (the same shape as report.ts's Check). */
export function serveChecks(serve: ServeFigures | undefined): { target: string; value: string; limit: string; status: "PASS" | "MISS" | "n/a" }[] {
  if (!serve) return [];
  const overhead = serve.echo.overheadP50Us;
  const rate = serve.throughput.callsPerSecond;
  const addedMiB = serve.idle.addedBytes / MiB;
  return [
    { target: "echo p50 over HTTP vs stdio", value: `+${fmt(overhead)} µs`, limit: `<= ${SERVE_OVERHEAD_GOAL_US} µs`, status: overhead <= SERVE_OVERHEAD_GOAL_US ? "PASS" : "MISS" },
    { target: "HTTP 8 clients x 8 in flight", value: `${fmt(rate)} calls/s`, limit: `>= ${SERVE_THROUGHPUT_GOAL}`, status: rate >= SERVE_THROUGHPUT_GOAL ? "PASS" : "MISS" },
    {
      target: `RSS added by ${serve.idle.sessions} idle HTTP sessions`,
      value: `${fmt(addedMiB, 1)} MiB`,
      limit: `<= ${IDLE_SESSIONS_GOAL_MIB} MiB`,
      status: addedMiB <= IDLE_SESSIONS_GOAL_MIB ? "PASS" : "MISS",
    },
  ];
}
