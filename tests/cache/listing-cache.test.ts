/** The listing cache on the real platform adapter: location, key, round trip, failures. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { platform } from "#platform";
import { cacheDirectory, capabilityKey, ListingCache, definitionKey } from "../../src/cache/listing-cache.ts";
import { validateConfig } from "../../src/config/index.ts";
import { buildInstructions } from "../../src/upstream/instructions.ts";
import { estimateTokens, formatTokens, toolboxFigures } from "../../src/upstream/toolbox-figures.ts";
import { fixtureTools } from "../fixtures/fixture-tools.ts";

const server = (extra: Record<string, unknown> = {}) =>
  validateConfig({ toolboxes: { dev: { mcpServers: { s: { command: "srv", ...extra } } } } }).toolboxes.dev.mcpServers.s;

/** The real adapter with its own env and a stderr we can read. */
function host(env: Record<string, string>) {
  const lines: string[] = [];
  return { lines, host: { ...platform, env, writeStderr: (text: string) => void lines.push(text) } };
}

function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(`${tmpdir()}/workbench-cache-`);
  return fn(dir).finally(() => rmSync(dir, { recursive: true, force: true }));
}

test("listing cache: WORKBENCH_CACHE_DIR, else the per-user cache of each platform", () => {
  assert.equal(cacheDirectory({ WORKBENCH_CACHE_DIR: "/c", HOME: "/h" }, "linux"), "/c");
  assert.equal(cacheDirectory({ XDG_CACHE_HOME: "/x", HOME: "/h" }, "linux"), "/x/mcp-workbench");
  assert.equal(cacheDirectory({ XDG_CACHE_HOME: "relative", HOME: "/h" }, "linux"), "/h/.cache/mcp-workbench");
  assert.equal(cacheDirectory({ HOME: "/h" }, "linux"), "/h/.cache/mcp-workbench");
  assert.equal(cacheDirectory({ HOME: "/Users/me", XDG_CACHE_HOME: "/x" }, "darwin"), "/Users/me/Library/Caches/mcp-workbench");
  assert.equal(cacheDirectory({ LOCALAPPDATA: "C:\\Users\\me\\AppData\\Local" }, "windows"), "C:\\Users\\me\\AppData\\Local\\mcp-workbench\\cache");
  assert.equal(cacheDirectory({ WORKBENCH_CACHE_DIR: "" }, "linux"), undefined);
  assert.equal(cacheDirectory({}, "windows"), undefined);
});

test("listing cache: the key is a SHA-256 of the resolved definition; env values change it and never show", async () => {
  const secret = "sk-secret-value";
  const key = await definitionKey(server({ env: { TOKEN: secret } }));
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.ok(!key.includes(secret));
  assert.equal(await definitionKey(server({ env: { TOKEN: secret } })), key, "stable");
  assert.notEqual(await definitionKey(server({ env: { TOKEN: "other" } })), key);
  assert.notEqual(await definitionKey(server({ env: { TOKEN: secret }, args: ["-v"] })), key);
  assert.notEqual(await definitionKey(server({ env: { TOKEN: secret }, toolFilters: ["echo"] })), key);
  // Settings that do not change the tool list do not change the key.
  assert.equal(await definitionKey(server({ env: { TOKEN: secret }, callTimeoutMs: 5 })), key);
});

test("listing cache: a remembered list is read back, by a new cache too; unchanged lists are not written again", async () => {
  await withDir(async (dir) => {
    const { host: h, lines } = host({ WORKBENCH_CACHE_DIR: `${dir}/nested/cache` });
    const cache = new ListingCache(h);
    const tools = fixtureTools("A");
    assert.equal(await cache.read(server()), undefined, "nothing yet, and no complaint");
    await cache.remember(server(), tools);
    const [file] = readdirSync(`${dir}/nested/cache`);
    assert.deepEqual(await new ListingCache(h).read(server()), tools);
    writeFileSync(`${dir}/nested/cache/${file}`, "touched");
    await cache.remember(server(), tools);
    assert.equal(readFileSync(`${dir}/nested/cache/${file}`, "utf8"), "touched", "the same list is not written twice");
    assert.deepEqual(lines, []);
  });
});

test("listing cache: a corrupt or foreign file is a miss, not an error", async () => {
  await withDir(async (dir) => {
    const { host: h, lines } = host({ WORKBENCH_CACHE_DIR: dir });
    const key = await definitionKey(server());
    for (const text of ["{not json", '{"format": 99, "tools": []}', '{"format": 1, "tools": [{"nameless": true}]}', "null"]) {
      writeFileSync(`${dir}/${key}.json`, text);
      assert.equal(await new ListingCache(h).read(server()), undefined, text);
    }
    assert.deepEqual(lines, []);
  });
});

test("listing cache: a directory that cannot be made is reported once on stderr, then left alone", async () => {
  await withDir(async (dir) => {
    writeFileSync(`${dir}/file`, "x");
    const { host: h, lines } = host({ WORKBENCH_CACHE_DIR: `${dir}/file/cache` });
    const cache = new ListingCache(h);
    await cache.remember(server(), fixtureTools("A"));
    await cache.remember(server({ args: ["2"] }), fixtureTools("B"));
    assert.equal(await cache.read(server()), undefined);
    assert.equal(lines.length, 1, lines.join(""));
    assert.match(lines[0], /^mcp-workbench: Listing cache ignored: cannot write '.*\/file\/cache\/[0-9a-f]{64}\.json': .+\n$/);
  });
});

test("listing cache: toolbox figures need every server cached; the instructions show them", async () => {
  await withDir(async (dir) => {
    const { host: h } = host({ WORKBENCH_CACHE_DIR: dir });
    const config = validateConfig({
      toolboxes: {
        dev: { description: "Files", mcpServers: { a: { command: "a" }, b: { command: "b" } } },
        half: { mcpServers: { a: { command: "a" }, c: { command: "c" } } },
        empty: {},
      },
    });
    const cache = new ListingCache(h);
    // Listed for a client that declared nothing (what a command's servers are given too).
    const none = capabilityKey({});
    await cache.remember(config.toolboxes.dev.mcpServers.a, fixtureTools("A"), undefined, none);
    await cache.remember(config.toolboxes.dev.mcpServers.b, fixtureTools("B").slice(0, 2), undefined, none);
    const figuresFor = await toolboxFigures(config, new ListingCache(h));
    const figures = figuresFor(undefined);
    assert.deepEqual(Object.keys(figures), ["dev"]);
    assert.equal(figures.dev.tools, fixtureTools("A").length + 2);
    assert.equal(figures.dev.exact, true);
    const instructions = buildInstructions(config, "/c.json", figures);
    assert.match(instructions, new RegExp(`^- dev: Files \\(2 servers, 21 tools, ~${formatTokens(figures.dev.tokens).replace(".", "\\.")} tokens\\)$`, "m"));
    assert.match(instructions, /^- half \(2 servers\)$/m);
    assert.match(instructions, /^- empty \(0 servers\)$/m);
    // A client that makes us declare elicitation may be listed more: only "about" is known for it.
    const other = figuresFor({ elicitation: {} });
    assert.equal(other.dev.exact, false);
    assert.match(buildInstructions(config, "/c.json", other), /^- dev: Files \(2 servers, about 21 tools, ~/m);
  });
});

test("listing cache: tokens are the UTF-8 bytes of the compact JSON over 4, rounded up; shown as 850 or 6.1k", () => {
  assert.equal(estimateTokens({ a: "bc" }), 3); // {"a":"bc"} is 10 bytes
  assert.equal(estimateTokens("éé"), 2); // "éé" is 4 characters but 6 bytes
  assert.equal(formatTokens(850), "850");
  assert.equal(formatTokens(6_140), "6.1k");
  assert.equal(formatTokens(1_000), "1.0k");
});

test("listing cache: prompts, resources and templates are kept next to the tools; a file with tools only still loads", async () => {
  await withDir(async (dir) => {
    const { host: h } = host({ WORKBENCH_CACHE_DIR: dir });
    const tools = fixtureTools("A");
    const catalog = {
      prompts: [{ name: "summarize", arguments: [{ name: "pr", required: true }] }],
      resources: [{ uri: "file:///a.txt", name: "a" }],
      resourceTemplates: [{ uriTemplate: "file:///{path}", name: "files" }],
    };
    await new ListingCache(h).remember(server(), tools, catalog);
    assert.deepEqual(await new ListingCache(h).readEntry(server()), { tools, listing: catalog, lists: {} });
    // A file written before prompts and resources were kept: its tools count, the rest is unknown.
    writeFileSync(`${dir}/${definitionKey(server())}.json`, JSON.stringify({ format: 1, tools }));
    assert.deepEqual(await new ListingCache(h).readEntry(server()), { tools, lists: {} });
    assert.deepEqual(await new ListingCache(h).read(server()), tools);
  });
});

test("listing cache: flush waits for every write begun, the era's as well as the lists' (a command exits right after)", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const written: string[] = [];
  const slow = {
    ...platform,
    env: { WORKBENCH_CACHE_DIR: "/nowhere" },
    makeDirectory: () => Promise.resolve(),
    writeTextFile: async (path: string) => {
      await gate;
      written.push(path);
    },
    writeStderr: () => {},
  };
  const cache = new ListingCache(slow);
  void cache.remember(server(), fixtureTools("a"));
  cache.rememberEra(server(), "2025-11-25");
  let flushed = false;
  const flush = cache.flush().then(() => (flushed = true));
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(flushed, false, "still writing");
  release();
  await flush;
  assert.equal(written.length, 2);
});

test("listing cache: flush waits for a list still reading the file it is added to (a slow disk, nothing else being written)", async () => {
  const written: string[] = [];
  const slow = {
    ...platform,
    env: { WORKBENCH_CACHE_DIR: "/nowhere" },
    // The file is read first (the lists for other capabilities are kept): slowly, then not found.
    readTextFile: () => new Promise<string>((_, reject) => setTimeout(() => reject(Object.assign(new Error("gone"), { name: "NotFound" })), 50)),
    makeDirectory: () => Promise.resolve(),
    writeTextFile: (path: string) => (written.push(path), Promise.resolve()),
    writeStderr: () => {},
  };
  const cache = new ListingCache(slow);
  void cache.remember(server(), fixtureTools("a"));
  await cache.flush();
  assert.equal(written.length, 1, "the list was written before flush resolved");
});

test("listing cache: a file keeps a list per set of capabilities the server was given (the last four), and the last list whoever it was for", async () => {
  await withDir(async (dir) => {
    const { host: h } = host({ WORKBENCH_CACHE_DIR: dir });
    const cache = new ListingCache(h);
    const keys = [{}, { elicitation: {} }, { sampling: {} }, { roots: {} }, { elicitation: {}, sampling: {} }].map(capabilityKey);
    for (const [index, key] of keys.entries()) await cache.remember(server(), fixtureTools(String(index)).slice(0, index + 1), undefined, key);
    const entry = (await new ListingCache(h).readEntry(server()))!;
    assert.deepEqual(Object.keys(entry.lists), keys.slice(1), "the oldest went first");
    assert.equal(entry.lists[keys[2]].length, 3);
    assert.equal(entry.tools.length, 5, "the last list");
    // Listed again for the first client: it is the latest now, the others stay.
    await cache.remember(server(), fixtureTools("x").slice(0, 1), undefined, keys[1]);
    const again = (await new ListingCache(h).readEntry(server()))!;
    assert.deepEqual(Object.keys(again.lists), [keys[2], keys[3], keys[4], keys[1]]);
    assert.equal(capabilityKey({ sampling: {}, elicitation: { url: {}, form: {} } }), capabilityKey({ elicitation: { form: {}, url: {} }, sampling: {} }));
  });
});

test("listing cache: a server's skills are kept with its listing; an entry that fails the check drops them", async () => {
  await withDir(async (dir) => {
    const { host: h } = host({ WORKBENCH_CACHE_DIR: dir });
    const tools = fixtureTools("A");
    const file = { uri: "skill://refunds/SKILL.md", digest: `sha256:${"a".repeat(64)}`, size: 10 };
    const skills = {
      directoryRead: true,
      entries: [{ uri: file.uri, frontmatter: { name: "refunds", description: "Refunds" }, resources: [file] }],
      refused: [],
    };
    const listing = { prompts: [], resources: [], resourceTemplates: [], skills };
    await new ListingCache(h).remember(server(), tools, listing);
    assert.deepEqual((await new ListingCache(h).readEntry(server()))?.listing, listing);
    const broken = { ...skills, entries: [{ ...skills.entries[0], resources: [{ ...file, digest: "md5:0" }] }] };
    writeFileSync(`${dir}/${definitionKey(server())}.json`, JSON.stringify({ format: 1, tools, ...listing, skills: broken }));
    assert.deepEqual((await new ListingCache(h).readEntry(server()))?.listing, { prompts: [], resources: [], resourceTemplates: [] });
  });
});
