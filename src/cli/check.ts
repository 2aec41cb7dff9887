/**
 * `mcp-workbench check [--toolbox NAME] [--json]`: validates the file, starts every server at once
 * through the same registry serving uses, reports each one, and stops them all.
 */
import type { Platform } from "../platform/types.ts";
import { formatPath } from "../config/path.ts";
import type { WorkbenchConfig } from "../config/index.ts";
import type { OpenToolbox, ServerSlot } from "../toolboxes/registry.ts";
import { fullEntries } from "../tools/open-toolbox.ts";
import { estimateTokens } from "../upstream/toolbox-figures.ts";
import { toolboxNotFound } from "../tools/lookup.ts";
import { serveLines, type ServeSummary, serveSummary } from "../upstream/access/summary.ts";
import { approveCommand } from "../toolboxes/withheld.ts";
import { type Environment, resolveTelemetry, telemetryTargets } from "../telemetry/index.ts";
import type { SubcommandArgs } from "./args.ts";
import { commandOffer, EXIT_FAILED, EXIT_USAGE, loadForCommand, printable, sayError, writeStdout } from "./common.ts";

export interface ServerReport {
  toolbox: string;
  server: string;
  transport: string;
  ok: boolean;
  /** Set `"disabled": true` in the file: not started, and not a failure. */
  disabled?: true;
  /** Tools after toolFilters. */
  tools: number;
  /** Estimated tokens of those tools' definitions as open_toolbox gives them to a model; null for a server that failed. */
  tokens: number | null;
  startMs: number;
  error?: string;
  warnings: string[];
  /** Tools not offered because they changed, or are new, since the server's tools were pinned. */
  withheld: WithheldReport[];
  /** The skills offered (Skills extension), when the server lists any: a server of skills alone has no tools. */
  skills?: number;
}

export interface WithheldReport {
  tool: string;
  /** "description changed", "new tool"... */
  reason: string;
  /** The command that shows the difference and approves it. */
  approve: string;
}

export interface CheckReport {
  /** The configuration file checked. */
  config: string;
  ok: boolean;
  servers: ServerReport[];
  /** Who may use the workbench served over HTTP, when the file says (never a token). */
  serve?: ServeSummary;
  /** Where telemetry would go when serving, and what in its settings cannot be used; absent when none is asked for. */
  telemetry?: { targets: string[]; warnings: string[] };
}

export async function runCheck(platform: Platform, args: SubcommandArgs): Promise<number> {
  const fallbacks: { name: string; location: string }[] = [];
  const loaded = await loadForCommand(platform, args.configPath, (name, location) => fallbacks.push({ name, location }));
  if (!loaded) return EXIT_USAGE;
  const { config, path } = loaded;
  const only = args.options["--toolbox"];
  if (typeof only === "string" && !Object.hasOwn(config.toolboxes, only)) {
    sayError(platform, toolboxNotFound(config, only, path));
    return EXIT_USAGE;
  }
  const names = typeof only === "string" ? [only] : Object.keys(config.toolboxes);
  const progress = platform.stderrIsTerminal() ? new Progress(platform, countServers(config, names)) : undefined;
  const offer = await commandOffer(platform, loaded, { onSettled: () => progress?.tick(), openGraceMs: Infinity });
  let report: CheckReport;
  try {
    const toolboxes = await Promise.all(names.map((name) => offer.open(name)));
    const servers = toolboxes.flatMap((toolbox) => [...reportToolbox(toolbox, fallbacks), ...disabledReports(config, toolbox.name)]);
    const serve = config.serve && serveSummary(config.serve);
    // A client whose token cannot be read is refused when serving: as a server that fails, exit 1.
    const ok = servers.every((server) => server.ok) && !serve?.clients.some((client) => client.unreadable !== undefined);
    const telemetry = telemetryReport(platform.env, config);
    report = { config: path, ok, servers, ...(serve && { serve }), ...(telemetry && { telemetry }) };
  } finally {
    progress?.done();
    await offer.registry.closeAll();
  }
  await writeStdout(platform, args.options["--json"] ? `${JSON.stringify(report, null, 2)}\n` : printable(table(report)));
  return report.ok ? 0 : EXIT_FAILED;
}

function countServers(config: WorkbenchConfig, names: string[]): number {
  return names.reduce((sum, name) => sum + Object.keys(config.toolboxes[name].mcpServers).length, 0);
}

function reportToolbox(toolbox: OpenToolbox, fallbacks: { name: string; location: string }[]): ServerReport[] {
  // The tool entries exactly as open_toolbox would list them: what the model would be sent.
  const listed = fullEntries(toolbox);
  return toolbox.servers.map((slot) => {
    const config = toolbox.config.mcpServers[slot.name];
    const tools = listed.filter((tool) => tool.source_server === slot.name);
    const where = formatPath(["toolboxes", toolbox.name, "mcpServers", slot.name]);
    const warnings = [
      ...fallbacks.filter(({ location }) => location.startsWith(where) && /^[.[]/.test(location.slice(where.length)))
        .map(({ name, location }) => `${name} is not set or empty: the default of \${${name}:-...} is used at ${location}`),
      ...(slot.serverSession ? toolWarnings(slot, config.toolFilters) : []),
    ];
    const how = slot.approveWith;
    const skills = slot.serverSession ? slot.listing?.skills?.entries.length : undefined;
    return {
      toolbox: toolbox.name,
      server: slot.name,
      transport: config.transport,
      ok: slot.serverSession !== undefined,
      tools: tools.length,
      tokens: slot.serverSession ? estimateTokens(tools) : null,
      startMs: slot.startMs ?? 0,
      ...(slot.error !== undefined && { error: slot.error }),
      warnings,
      ...(skills !== undefined && skills > 0 && { skills }),
      withheld: [
        ...slot.withheld.map(({ name, reason }) => ({ tool: name, reason, approve: approveCommand(toolbox.name, slot.name, name, how) })),
        // Prompts, resources, templates and instructions: approved with their server's tools.
        ...slot.withheldTexts.map(({ name, reason }) => ({
          tool: name,
          reason,
          approve: approveCommand(toolbox.name, slot.name, undefined, how),
        })),
      ],
    };
  });
}

/** A row for each server the file sets `"disabled": true`: said, never started. */
function disabledReports(config: WorkbenchConfig, toolbox: string): ServerReport[] {
  return (config.toolboxes[toolbox].disabledServers ?? []).map((server) => ({
    toolbox,
    server,
    transport: "-",
    ok: true,
    disabled: true,
    tools: 0,
    tokens: null,
    startMs: 0,
    warnings: [`disabled in the file ("disabled": true): not started, and not offered to clients; delete that key to use it`],
    withheld: [],
  }));
}

/** toolFilters naming what the server does not have; tool names the server lists twice. */
function toolWarnings(slot: ServerSlot, filters: string[] | undefined): string[] {
  const names = slot.serverSession!.tools.map((tool) => tool.name);
  const warnings: string[] = [];
  const missing = (filters ?? []).map((name) => name.replace(/^!/, "")).filter((name) => name !== "*" && !names.includes(name));
  if (missing.length > 0) {
    warnings.push(`toolFilters names ${quoteAll(missing)}, which the server does not have`);
  }
  const duplicates = [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
  if (duplicates.length > 0) warnings.push(`the server lists ${quoteAll(duplicates)} more than once`);
  return warnings;
}

/** Telemetry as `serve` would read it: said only when the file or the environment asks for it. */
function telemetryReport(env: Environment, config: WorkbenchConfig): CheckReport["telemetry"] {
  const { settings, warnings } = resolveTelemetry(env, config.telemetry);
  const targets = telemetryTargets(settings);
  return targets.length > 0 || warnings.length > 0 ? { targets, warnings } : undefined;
}

function telemetryLines(telemetry: NonNullable<CheckReport["telemetry"]>): string[] {
  const where = telemetry.targets.length > 0 ? telemetry.targets.join(", ") : "off";
  return [`Telemetry: ${where}`, ...telemetry.warnings.map((warning) => `  warning: ${warning}`)];
}

const quoteAll = (names: string[]) => names.map((name) => `'${name}'`).join(", ");

function table(report: CheckReport): string {
  const source = `Configuration: ${report.config}\n`;
  // After the servers: who may use the workbench over HTTP, and where its telemetry goes.
  const footer = (report.serve ? `\n${serveLines(report.serve).join("\n")}\n` : "") +
    (report.telemetry ? `\n${telemetryLines(report.telemetry).join("\n")}\n` : "");
  if (report.servers.length === 0) return `${source}No servers to check\n${footer}`;
  const header = ["TOOLBOX", "SERVER", "TRANSPORT", "STATUS", "TOOLS", "TOKENS", "START"];
  const rows = report.servers.map((s) => [
    s.toolbox,
    s.server,
    s.transport,
    s.disabled ? "disabled" : s.ok ? "ok" : "FAILED",
    s.ok && !s.disabled ? String(s.tools) : "-",
    s.tokens === null ? "-" : String(s.tokens),
    s.disabled ? "-" : `${s.startMs} ms`,
  ]);
  const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => row[column].length)));
  const line = (row: string[]) => row.map((cell, column) => cell.padEnd(widths[column])).join("  ").trimEnd();
  const lines = [line(header)];
  report.servers.forEach((server, index) => {
    lines.push(line(rows[index]));
    if (server.error !== undefined) lines.push(`  error: ${server.error}`);
    for (const warning of server.warnings) lines.push(`  ${server.disabled ? "note" : "warning"}: ${warning}`);
    if (server.skills) lines.push(`  skills: ${server.skills}, offered as skill:// resources (and to a model through read_skill)`);
    for (const held of server.withheld) lines.push(`  withheld: '${held.tool}' (${held.reason}); review it with: ${held.approve}`);
  });
  const failed = report.servers.filter((server) => !server.ok).length;
  const disabled = report.servers.filter((server) => server.disabled).length;
  const total = report.servers.length - disabled;
  const withheld = report.servers.reduce((sum, server) => sum + server.withheld.length, 0);
  const off = disabled > 0 ? ` (${disabled} disabled, not started)` : "";
  lines.push("", `${failed === 0 ? `All ${total} server(s) ok` : `${failed} of ${total} server(s) failed`}${off}`);
  if (withheld > 0) lines.push(`${withheld} tool(s) withheld: changed or new since their server's tools were pinned`);
  return `${source}${lines.join("\n")}\n${footer}`;
}

/** One line on a terminal's stderr, rewritten as servers finish starting. */
class Progress {
  readonly #platform: Platform;
  readonly #total: number;
  #done = 0;

  constructor(platform: Platform, total: number) {
    this.#platform = platform;
    this.#total = total;
    this.#show();
  }

  tick(): void {
    this.#done++;
    this.#show();
  }

  done(): void {
    this.#platform.writeStderr("\r\x1b[K");
  }

  #show(): void {
    this.#platform.writeStderr(`\r\x1b[KStarting servers: ${this.#done} of ${this.#total} done`);
  }
}
