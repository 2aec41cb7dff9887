/** The Homebrew formula and the Scoop manifest, rendered from the templates in packaging/. */
import { fileURLToPath } from "node:url";
import { sha256OfFile } from "./checksums.ts";
import { archiveName, type Target, type TargetId } from "./targets.ts";
import { escapeJsonString, escapeRubyString, renderTemplate } from "./template.ts";

const packaging = fileURLToPath(new URL("../../packaging/", import.meta.url));
export const FORMULA_TEMPLATE = `${packaging}homebrew/mcp-workbench.rb.template`;
export const SCOOP_TEMPLATE = `${packaging}scoop/mcp-workbench.json.template`;
export const FORMULA_FILE = "mcp-workbench.rb";
export const SCOOP_FILE = "mcp-workbench.json";

/** An archive as the package managers see it: where to download it and what it must hash to. */
export interface ReleaseArchive {
  target: Target;
  fileName: string;
  url: string;
  sha256: string;
}

export interface ReleaseInfo {
  version: string;
  description: string;
  homepage: string;
  license: string;
  /** Where the archives are published; Scoop's autoupdate derives future URLs from it. */
  baseUrl: string;
  archives: readonly ReleaseArchive[];
}

/** Hashes `<dir>/<archive name>` and says where it will be downloaded from. */
export function describeArchive(dir: string, version: string, baseUrl: string, target: Target): ReleaseArchive {
  const fileName = archiveName(version, target);
  return { target, fileName, url: `${baseUrl}/${fileName}`, sha256: sha256OfFile(`${dir}/${fileName}`) };
}

const FORMULA_TARGETS: readonly TargetId[] = ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64"];

export interface RenderedFormula {
  text: string;
  /** Targets Homebrew supports that have no archive, hence no block: the formula is incomplete. */
  missing: TargetId[];
}

export function renderFormula(template: string, info: ReleaseInfo): RenderedFormula {
  const byId = new Map(info.archives.map((archive) => [archive.target.id, archive]));
  const values: Record<string, string> = { version: info.version, homepage: info.homepage, license: info.license };
  const sections: Record<string, boolean> = {
    macos: byId.has("darwin-arm64") || byId.has("darwin-x64"),
    linux: byId.has("linux-arm64") || byId.has("linux-x64"),
  };
  for (const id of FORMULA_TARGETS) {
    const archive = byId.get(id);
    sections[id] = archive !== undefined;
    if (archive) Object.assign(values, { [`${id}.url`]: archive.url, [`${id}.sha256`]: archive.sha256 });
  }
  const text = renderTemplate(template, values, { sections, escape: escapeRubyString });
  return { text, missing: FORMULA_TARGETS.filter((id) => !byId.has(id)) };
}

/** The Scoop manifest, or undefined without a windows-x64 archive (Scoop has nothing to install). */
export function renderScoopManifest(template: string, info: ReleaseInfo): string | undefined {
  const windows = info.archives.find((archive) => archive.target.id === "windows-x64");
  if (!windows) return undefined;
  const text = renderTemplate(template, {
    version: info.version,
    description: info.description,
    homepage: info.homepage,
    license: info.license,
    "windows-x64.url": windows.url,
    "windows-x64.sha256": windows.sha256,
    "autoupdate.url": autoupdateUrl(info.baseUrl, info.version, windows.target),
  }, { escape: escapeJsonString });
  JSON.parse(text); // A template edit that breaks JSON fails here, not in Scoop.
  return text;
}

/** Scoop fills `$version` in when a new release appears, so the version in the URL becomes `$version`. */
export function autoupdateUrl(baseUrl: string, version: string, target: Target): string {
  return `${baseUrl.split(version).join("$version")}/${archiveName("$version", target)}`;
}
