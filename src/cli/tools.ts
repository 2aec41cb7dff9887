/**
 * `mcp-workbench tools <toolbox> [--json]`: a toolbox's tools, as open_toolbox returns them. A
 * server that failed makes it exit 1, as `check` does, after the tools of the others.
 */
import type { Platform } from "../platform/types.ts";
import { openToolbox, type OpenToolboxResult } from "../tools/open-toolbox.ts";
import type { SubcommandArgs } from "./args.ts";
import { commandOffer, EXIT_FAILED, EXIT_USAGE, loadForToolbox, printable, sayError, writeStdout } from "./common.ts";

export async function runTools(platform: Platform, args: SubcommandArgs): Promise<number> {
  const [name] = args.positionals;
  const loaded = await loadForToolbox(platform, args.configPath, name);
  if (!loaded) return EXIT_USAGE;
  const { config } = loaded;
  // Every server is waited for: the command lists them all.
  const offer = await commandOffer(platform, loaded, { openGraceMs: Infinity });
  try {
    const result = await openToolbox.run({ toolbox_name: name, detail: "full" }, {
      session: { config, offer },
      request: { signal: new AbortController().signal },
    });
    if (!result.ok) {
      sayError(platform, result.error);
      return Object.hasOwn(config.toolboxes, name) ? EXIT_FAILED : EXIT_USAGE;
    }
    // Asked for in full, so the result lists tools (a toolbox's openDetail does not apply here).
    const opened = result.value as OpenToolboxResult;
    // Servers that failed while others connected: said on stderr, the listing stays clean.
    for (const error of opened._errors ?? []) sayError(platform, error);
    if (opened.withheld) sayError(platform, opened.withheld);
    for (const server of config.toolboxes[name].disabledServers ?? []) {
      sayError(platform, `Server '${server}' is disabled ("disabled": true in '${loaded.path}'): not started, its tools not listed`);
    }
    if (args.options["--json"]) {
      await writeStdout(platform, `${JSON.stringify(opened, null, 2)}\n`);
    } else {
      const names = opened.tools.map((tool) => `${tool.source_server}/${tool.name}`);
      const width = Math.max(0, ...names.map((text) => text.length));
      const lines = opened.tools.map((tool, index) => {
        const about = firstLine(tool.description ?? "");
        return about === "" ? names[index] : `${names[index].padEnd(width)}  ${about}`;
      });
      await writeStdout(platform, lines.length === 0 ? "" : `${printable(lines.join("\n"))}\n`);
    }
    return opened._errors?.length ? EXIT_FAILED : 0;
  } finally {
    await offer.registry.closeAll();
  }
}

function firstLine(text: string): string {
  return text.trim().split(/\r\n|\n|\r/)[0].trim();
}
