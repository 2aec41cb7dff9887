/** Packs a built executable (plus README.md and LICENSE) into the archive its platform expects. */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import process from "node:process";
import { archiveName, type Target } from "./targets.ts";
import { createZip } from "./zip.ts";

/** Shipped next to the executable when the repository has them. */
export const DOCUMENTS = ["README.md", "LICENSE"];
const TAR_TIMEOUT_MS = 180_000;

/**
 * `stagingDir` holds the built executable; the documents found in `sourceDir` are copied next to it.
 * Returns the archive's path in `outDir`.
 */
export function packArchive(target: Target, stagingDir: string, sourceDir: string, outDir: string, version: string): string {
  const names = [target.executable, ...stageDocuments(stagingDir, sourceDir)];
  chmodSync(`${stagingDir}/${target.executable}`, 0o755);
  const outPath = `${outDir}/${archiveName(version, target)}`;
  if (target.archiveFormat === "zip") writeZipArchive(stagingDir, names, outPath);
  else writeTarGzArchive(stagingDir, names, outPath);
  return outPath;
}

function stageDocuments(stagingDir: string, sourceDir: string): string[] {
  const present = DOCUMENTS.filter((name) => existsSync(`${sourceDir}/${name}`));
  for (const name of present) {
    copyFileSync(`${sourceDir}/${name}`, `${stagingDir}/${name}`);
    chmodSync(`${stagingDir}/${name}`, 0o644);
  }
  return present;
}

/** The system tar (GNU on Linux, bsdtar on macOS) keeps the modes we set; COPYFILE_DISABLE stops macOS `._` files. */
function writeTarGzArchive(stagingDir: string, names: string[], outPath: string): void {
  const result = spawnSync("tar", ["-czf", outPath, "-C", stagingDir, ...names], {
    encoding: "utf8",
    env: { ...process.env, COPYFILE_DISABLE: "1" },
    timeout: TAR_TIMEOUT_MS,
  });
  if (result.error) throw new Error(`Could not run "tar": ${result.error.message}`);
  if (result.status !== 0) {
    const why = result.stderr.trim().split("\n")[0] || `exit ${result.status ?? result.signal}`;
    throw new Error(`"tar" failed for "${outPath}": ${why}`);
  }
}

function writeZipArchive(stagingDir: string, names: string[], outPath: string): void {
  const entries = names.map((name) => {
    const path = `${stagingDir}/${name}`;
    const stat = statSync(path);
    return { name, data: readFileSync(path), mode: stat.mode & 0o777, modified: stat.mtime };
  });
  writeFileSync(outPath, createZip(entries));
}
