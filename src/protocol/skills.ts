/**
 * The MCP Skills extension (`io.modelcontextprotocol/skills`, targeting base revision 2026-07-28):
 * its identifier, the shape of a skill entry, the per-skill limits every host must support, and
 * the check of an entry a server gave (a malformed or over-limit entry is refused with a reason),
 * and the URIs a client of the workbench sees: `skill://<toolbox>/<server>/<path>` (see
 * upstream/catalog/skills.ts for why).
 */

export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/** Per-skill limits of the specification: supported up to and including, refused beyond. */
export const MAX_SKILL_FILES = 512;
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;
/** A skill's name is 1 to this many characters. */
export const MAX_SKILL_NAME = 64;

/** One file of a skill: the digest and size cover its raw bytes. */
export interface SkillResource {
  uri: string;
  digest: string;
  size: number;
}

/** A skill entry as `skills/list` and `skills/get` give it: a whole manifest, or "dynamic". */
export interface SkillEntry {
  uri: string;
  frontmatter: { name: string; description: string; [key: string]: unknown };
  resources: SkillResource[] | "dynamic";
}

/** What a server declares of the extension, or undefined when it does not declare it. */
export function skillsDeclaration(
  capabilities: { extensions?: Record<string, unknown> } | undefined,
): { directoryRead: boolean } | undefined {
  const declared = capabilities?.extensions?.[SKILLS_EXTENSION];
  if (declared === undefined || declared === null || typeof declared !== "object") return undefined;
  return { directoryRead: (declared as { directoryRead?: unknown }).directoryRead === true };
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** The entry when it is well formed and within the limits, else the reason it is refused. */
export function checkSkillEntry(value: unknown): { entry: SkillEntry } | { uri: string; reason: string } {
  const entry = value as Partial<SkillEntry> | null;
  const uri = typeof entry?.uri === "string" ? entry.uri : "";
  const refuse = (reason: string) => ({ uri, reason });
  if (!uri.endsWith("/SKILL.md")) return refuse(`Skill URI "${uri}" does not end in "/SKILL.md"`);
  const frontmatter = entry?.frontmatter;
  if (typeof frontmatter?.name !== "string" || typeof frontmatter.description !== "string") {
    return refuse(`Skill "${uri}" has no frontmatter name and description`);
  }
  // A name of 1 to 64 characters (the specification's): an empty one would root the skill at "skill://",
  // every URI of its server then under a "dynamic" skill's root.
  if (frontmatter.name.length < 1 || frontmatter.name.length > MAX_SKILL_NAME) {
    return refuse(`Skill "${uri}" has a name of ${frontmatter.name.length} characters, where a name has 1 to ${MAX_SKILL_NAME}`);
  }
  if (uri.split("/").at(-2) !== frontmatter.name) return refuse(`Skill "${uri}" is not named "${frontmatter.name}" in its URI`);
  const resources = entry?.resources;
  if (resources === "dynamic") return { entry: entry as SkillEntry };
  if (!Array.isArray(resources)) return refuse(`Skill "${uri}" has no resources`);
  const root = uri.slice(0, -"SKILL.md".length);
  const bad = resources.find((file) =>
    typeof file?.uri !== "string" || !file.uri.startsWith(root) || !DIGEST.test(String(file.digest)) ||
    !Number.isSafeInteger(file.size) || file.size < 0
  );
  if (bad) return refuse(`Skill "${uri}" lists a file "${String(bad?.uri)}" without a sha256 digest and size under its root`);
  if (!resources.some((file) => file.uri === uri)) return refuse(`Skill "${uri}" does not list its SKILL.md`);
  if (resources.length > MAX_SKILL_FILES) {
    return refuse(`Skill "${uri}" has ${resources.length} files, more than the ${MAX_SKILL_FILES} supported`);
  }
  const bytes = resources.reduce((sum, file) => sum + file.size, 0);
  if (bytes > MAX_SKILL_BYTES) return refuse(`Skill "${uri}" has ${bytes} bytes, more than the ${MAX_SKILL_BYTES} supported`);
  return { entry: entry as SkillEntry };
}

const SCHEME = "skill://";

/** The URI a client sees for a server's URI: `skill://T/S/<path>`; another scheme is left as it is. */
export function publicUri(configured: { toolbox: string; server: string }, uri: string): string {
  if (!uri.startsWith(SCHEME)) return uri;
  return `${SCHEME}${encodeURIComponent(configured.toolbox)}/${encodeURIComponent(configured.server)}/${uri.slice(SCHEME.length)}`;
}

/** The entry as a client sees it: its URI and every file's rewritten alike; frontmatter and digests as they are. */
export function publicEntry(configured: { toolbox: string; server: string }, entry: SkillEntry): SkillEntry {
  const resources = entry.resources === "dynamic"
    ? "dynamic" as const
    : entry.resources.map((file) => ({ ...file, uri: publicUri(configured, file.uri) }));
  return { ...entry, uri: publicUri(configured, entry.uri), resources };
}
