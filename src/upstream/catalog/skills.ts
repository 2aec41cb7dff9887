/**
 * The Skills extension (`io.modelcontextprotocol/skills`) of every server in the session's offer,
 * served as one: `skills/list` (every offered skill, paged, entries whole), `skills/get` and
 * `resources/directory/read` routed to the server that serves the URI, and `resources/read` of
 * skill files. Two servers may serve the same skill URI, and we are one server to the client, so
 * every `skill://` URI a client sees names its origin: `skill://<path>` of server S in toolbox T
 * is `skill://T/S/<path>`. Every skill, not only colliding ones: a URI then never changes because
 * another server came or went, the origin is in the URI the model reads (the specification asks
 * that it be visible), and routing needs no table. The last segment stays the skill's name,
 * `SKILL.md` stays, relative references resolve (the whole tree moves), and digests stay true (the
 * bytes are the server's). A request with a rewritten URI goes to its server with the original.
 * A skill withheld by the pins is neither listed nor got, and its files are not read.
 */
import { ErrorCode, ResultSchema } from "../../protocol/sdk.ts";
import type { ConfiguredServer } from "../../toolboxes/registry.ts";
import type { ServerListing } from "../../downstream/listing.ts";
import { errorWithCode } from "../../protocol/errors.ts";
import { checkSkillEntry, publicEntry, publicUri, type SkillEntry, type SkillResource } from "../../protocol/skills.ts";
import { skillFiles } from "../../toolboxes/fingerprint.ts";
import { canonicalJson } from "../../cache/canonical-json.ts";
import { approveCommand, type ApproveWith, type Withheld } from "../../toolboxes/withheld.ts";
import type { ListingCache } from "../../cache/listing-cache.ts";
import type { WorkbenchConfig } from "../../config/index.ts";
import type { Span } from "../../telemetry/index.ts";

type Content = { uri: string; mimeType?: string; text?: string; blob?: string };

/** Entries per page of our skills/list. */
export const SKILLS_PAGE = 50;
const SCHEME = "skill://";

export { publicEntry, publicUri };

/** What the catalog lends: its sources (the offer), a forward to a server, and a server's withheld texts. */
export interface SkillHost {
  sources(): Promise<{ configured: ConfiguredServer; listing: ServerListing }[]>;
  configured(): ConfiguredServer[];
  /** Passes a request on; with telemetry on, a CLIENT span under `span` (the client's request). */
  forward(configured: ConfiguredServer, method: string, params: Record<string, unknown>, span?: Span): Promise<unknown>;
  /** The server's withheld texts once it is connected and its pins read. */
  withheld(configured: ConfiguredServer): Promise<Withheld[]>;
  /** What the approve command must be told besides the server (its configuration file, a client). */
  approveWith?(configured: ConfiguredServer): ApproveWith;
}

export class SkillRoutes {
  readonly #host: SkillHost;

  constructor(host: SkillHost) {
    this.#host = host;
  }

  /** The same words as open_toolbox's hints (withheld.ts): the dry run first, shell-quoted. */
  #approveHint(configured: ConfiguredServer): string {
    const command = approveCommand(configured.toolbox, configured.server, undefined, this.#host.approveWith?.(configured));
    return `the user can review it with: ${command} --dry-run, and approve on a terminal with: ${command}`;
  }

  /** The server a rewritten URI names, and the URI as that server knows it; undefined for any other URI. */
  originOf(uri: string): { configured: ConfiguredServer; uri: string } | undefined {
    if (!uri.startsWith(SCHEME)) return undefined;
    const [toolbox, server, ...rest] = uri.slice(SCHEME.length).split("/");
    if (rest.length === 0 || rest[0] === "") return undefined;
    const configured = this.#host.configured().find((one) =>
      encodeURIComponent(one.toolbox) === toolbox && encodeURIComponent(one.server) === server
    );
    return configured && { configured, uri: `${SCHEME}${rest.join("/")}` };
  }

  async list(cursor: unknown): Promise<Record<string, unknown>> {
    const all = (await this.#host.sources()).flatMap(({ configured, listing }) =>
      (listing.skills?.entries ?? []).map((entry) => publicEntry(configured, entry))
    );
    const start = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isInteger(start) || start < 0 || start > all.length) {
      throw errorWithCode(ErrorCode.InvalidParams, `Invalid cursor "${String(cursor)}"`);
    }
    const end = start + SKILLS_PAGE;
    return { resultType: "complete", skills: all.slice(start, end), ...(end < all.length && { nextCursor: String(end) }), ...CACHE_HINT };
  }

  /** The server's entry for the skill, when it is the one offered (a skill changed since is withheld). */
  async get(uri: string, span?: Span): Promise<Record<string, unknown>> {
    const origin = this.originOf(uri);
    const offered = origin && await this.#offered(origin.configured, origin.uri);
    if (!origin || !offered) throw errorWithCode(ErrorCode.InvalidParams, `No skill is served at "${uri}"`);
    const result = await this.#host.forward(origin.configured, "skills/get", { uri: origin.uri }, span) as { skill?: unknown };
    const checked = checkSkillEntry(result.skill);
    if (!("entry" in checked)) throw errorWithCode(ErrorCode.InternalError, checked.reason);
    if (pinOf(checked.entry) !== pinOf(offered)) {
      throw errorWithCode(
        ErrorCode.InvalidParams,
        `Skill "${uri}" changed since it was approved: it is withheld (${this.#approveHint(origin.configured)})`,
      );
    }
    return { ...result, resultType: "complete", skill: publicEntry(origin.configured, checked.entry) };
  }

  async readDirectory(params: { uri: string; cursor?: unknown }, span?: Span): Promise<Record<string, unknown>> {
    const origin = this.originOf(params.uri);
    const listing = origin && (await this.#host.sources()).find((source) => source.configured === origin.configured)?.listing;
    if (!origin || !listing?.skills?.directoryRead) {
      throw errorWithCode(ErrorCode.InvalidParams, `"${params.uri}" is not a directory resource of a server that reads directories`);
    }
    const forwarded = { ...params, uri: origin.uri };
    const result = await this.#host.forward(origin.configured, "resources/directory/read", forwarded, span) as {
      resources?: { uri: string }[];
    };
    const resources = (result.resources ?? []).map((child) => ({ ...child, uri: publicUri(origin.configured, child.uri) }));
    return { ...result, resultType: "complete", resources };
  }

  /** A read of a rewritten URI: to its server with the original URI, the contents' URIs rewritten back. */
  async read(params: { uri: string }, span?: Span): Promise<unknown> {
    return (await this.#read(params, span)).result;
  }

  /** The read, and the listed file whose digest and size its one item's bytes matched (none: nothing was hashed). */
  async #read(params: { uri: string }, span?: Span): Promise<{ result: { contents: Content[] }; verified?: SkillResource }> {
    const origin = this.originOf(params.uri)!;
    await this.guard(origin.configured, origin.uri);
    const forwarded = { ...params, uri: origin.uri };
    const result = await this.#host.forward(origin.configured, "resources/read", forwarded, span) as { contents?: unknown };
    const contents = Array.isArray(result.contents) ? result.contents as Content[] : [];
    const verified = await this.#verify(origin.configured, origin.uri, contents);
    const rewritten = contents.map((content) => ({ ...content, uri: publicUri(origin.configured, content.uri) }));
    return { result: { ...result, contents: rewritten }, verified };
  }

  /**
   * A file of an offered skill, read as resources/read reads it (pins, digest and size verified):
   * use_tool's read_skill, for a client that does not speak resources or the extension. Only a
   * file its skill's entry lists (any file under a "dynamic" skill's root) is read; `verified` is
   * the entry's digest and size, which the bytes matched (none for a dynamic skill's file).
   */
  async readFile(uri: string, span?: Span): Promise<{ contents: Content[]; verified?: { digest: string; size: number } }> {
    const origin = this.originOf(uri);
    if (!origin) {
      throw errorWithCode(
        ErrorCode.InvalidParams,
        `"${uri}" is not a skill file: its URI names its toolbox and server (skill://<toolbox>/<server>/<path>)`,
      );
    }
    await this.guard(origin.configured, origin.uri);
    const entries = (await this.#host.sources()).find((one) => one.configured === origin.configured)?.listing.skills?.entries ?? [];
    const dynamic = entries.some((entry) => entry.resources === "dynamic" && origin.uri.startsWith(entry.uri.slice(0, -"SKILL.md".length)));
    const file = entries.flatMap((entry) => entry.resources === "dynamic" ? [] : entry.resources).find((one) => one.uri === origin.uri);
    if (!file && !dynamic) {
      const { toolbox, server } = origin.configured;
      throw errorWithCode(ErrorCode.InvalidParams, `"${uri}" is not a file of a skill server '${server}' in toolbox '${toolbox}' offers`);
    }
    const { result, verified } = await this.#read({ uri }, span);
    return { contents: result.contents, ...(verified && { verified: { digest: verified.digest, size: verified.size } }) };
  }

  /**
   * A resource withheld by the pins is not read, though a template the server still offers matches
   * its URI; nor is a file under a withheld skill's directory (its bytes are not the approved ones).
   */
  async guard(configured: ConfiguredServer, uri: string): Promise<void> {
    const withheld = await this.#host.withheld(configured);
    // The skill first: its reason (frontmatter, files) says more than its SKILL.md's as a resource.
    const held = withheld.find((text) =>
      text.name.startsWith("skill:") && uri.startsWith(text.name.slice("skill:".length, -"SKILL.md".length))
    );
    if (held) {
      const skill = publicUri(configured, held.name.slice("skill:".length));
      throw errorWithCode(
        ErrorCode.InvalidParams,
        `"${publicUri(configured, uri)}" belongs to skill "${skill}", withheld: ${held.reason} (${this.#approveHint(configured)})`,
      );
    }
    const resource = withheld.find((text) => text.name === `resource:${uri}`);
    if (resource) {
      throw errorWithCode(
        ErrorCode.InvalidParams,
        `Resource "${publicUri(configured, uri)}" is withheld: ${resource.reason} (${this.#approveHint(configured)})`,
      );
    }
  }

  /**
   * A file of an offered skill must be the bytes its entry was approved with (a server may change
   * them without saying so): the answer to a read of a file a non-dynamic skill lists is one item,
   * at that URI, with `text` or `blob`, whose bytes match the file's digest and size; anything else
   * (another URI, a second item, a blob beside the text) is not passed on. Every item names its URI.
   * The file verified; undefined when the URI is no such file (nothing was hashed).
   */
  async #verify(configured: ConfiguredServer, uri: string, contents: Content[]): Promise<SkillResource | undefined> {
    const at = publicUri(configured, uri);
    if (contents.some((content) => typeof content?.uri !== "string")) {
      const message = `Server '${configured.server}' answered the read of "${at}" with an item without a URI: not passed on`;
      throw errorWithCode(ErrorCode.InternalError, message);
    }
    const source = (await this.#host.sources()).find((one) => one.configured === configured);
    const files = (source?.listing.skills?.entries ?? []).flatMap((entry) => entry.resources === "dynamic" ? [] : entry.resources);
    const file = files.find((one) => one.uri === uri);
    if (!file) return undefined;
    const refuse = (why: string) =>
      errorWithCode(ErrorCode.InternalError, `"${at}" is not the file its skill was approved with (${why}): not passed on`);
    const [content] = contents;
    if (contents.length !== 1) throw refuse(`${contents.length} items, where a file is one`);
    if (content.uri !== uri) throw refuse(`an item at "${publicUri(configured, content.uri)}"`);
    const isText = typeof content.text === "string";
    if (isText === (typeof content.blob === "string")) throw refuse("an item with both or neither of text and blob");
    const bytes = isText ? new TextEncoder().encode(content.text) : decodeBase64(content.blob!);
    const hash = bytes && new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const hex = hash && [...hash].map((byte) => byte.toString(16).padStart(2, "0")).join("");
    if (!bytes || bytes.byteLength !== file.size || `sha256:${hex}` !== file.digest) throw refuse("digest or size differ");
    return file;
  }

  async #offered(configured: ConfiguredServer, uri: string): Promise<SkillEntry | undefined> {
    await this.guard(configured, uri);
    const source = (await this.#host.sources()).find((one) => one.configured === configured);
    return source?.listing.skills?.entries.find((entry) => entry.uri === uri);
  }
}

/** A blob's bytes; undefined when it is not base64. */
function decodeBase64(blob: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    return Uint8Array.from(atob(blob), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** Our listing is the offer, which pins may change: a client may keep it a minute, for itself alone. */
const CACHE_HINT = { ttlMs: 60_000, cacheScope: "private" };

const pinOf = (entry: SkillEntry) => canonicalJson({ frontmatter: entry.frontmatter, files: skillFiles(entry.resources) });

/**
 * What the client is told of the extension at initialize, before any server starts: declared when
 * a server of its configuration declared it when last listed (the listing cache), with
 * `directoryRead` when one of those reads directories. A first session, before any server was
 * listed, is told nothing (MCP has no later change of capabilities); the next one is.
 */
export async function cachedSkillsDeclaration(config: WorkbenchConfig, cache: ListingCache | undefined, client?: string) {
  if (!cache) return undefined;
  const servers = Object.values(config.toolboxes).flatMap((toolbox) => Object.values(toolbox.mcpServers));
  const skills = (await Promise.all(servers.map(async (server) => (await cache.readEntry(server, client))?.listing?.skills)))
    .filter((found) => found !== undefined);
  return skills.length === 0 ? undefined : { directoryRead: skills.some((found) => found.directoryRead) };
}

/** The schema forwarded requests are read with: any result. */
export const ANY_RESULT = ResultSchema;
