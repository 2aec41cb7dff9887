/** The platforms a release ships for, and how their archives are named. */

export type TargetId = "linux-x64" | "linux-arm64" | "darwin-x64" | "darwin-arm64" | "windows-x64";

export interface Target {
  id: TargetId;
  os: "linux" | "darwin" | "windows";
  arch: "x64" | "arm64";
  /** What `bun build --compile --target=` calls it (Bun says aarch64 where Node says arm64). */
  bunTarget: string;
  archiveFormat: "tar.gz" | "zip";
  executable: string;
}

/** Windows users expect a zip and an .exe; everyone else gets a tar.gz that keeps the executable bit. */
function defineTarget(os: Target["os"], arch: Target["arch"], bunTarget: string): Target {
  const windows = os === "windows";
  return {
    id: `${os}-${arch}` as TargetId,
    os,
    arch,
    bunTarget,
    archiveFormat: windows ? "zip" : "tar.gz",
    executable: windows ? "mcp-workbench.exe" : "mcp-workbench",
  };
}

export const TARGETS: readonly Target[] = [
  defineTarget("linux", "x64", "bun-linux-x64"),
  defineTarget("linux", "arm64", "bun-linux-aarch64"),
  defineTarget("darwin", "x64", "bun-darwin-x64"),
  defineTarget("darwin", "arm64", "bun-darwin-aarch64"),
  defineTarget("windows", "x64", "bun-windows-x64"),
];

export function targetById(id: string): Target | undefined {
  return TARGETS.find((target) => target.id === id);
}

/** `mcp-workbench-<version>-<os>-<arch>.<tar.gz|zip>`; the version may be Scoop's `$version`. */
export function archiveName(version: string, target: Target): string {
  return `mcp-workbench-${version}-${target.id}.${target.archiveFormat}`;
}

/** Parses `linux-x64,darwin-arm64`; an unknown name is an error that lists the known ones. */
export function parseTargetList(list: string): Target[] {
  const ids = list.split(",").map((id) => id.trim()).filter((id) => id !== "");
  if (ids.length === 0) throw new Error(`No targets in "${list}"`);
  const targets = ids.map((id) => {
    const target = targetById(id);
    if (!target) throw new Error(`Unknown target "${id}" (known: ${TARGETS.map((t) => t.id).join(", ")})`);
    return target;
  });
  return [...new Set(targets)];
}

/** The target of the machine we run on, from Node-style platform and arch names, if we ship one. */
export function hostTarget(platform: string, arch: string): Target | undefined {
  const os = platform === "win32" ? "windows" : platform;
  return TARGETS.find((target) => target.os === os && target.arch === arch);
}
