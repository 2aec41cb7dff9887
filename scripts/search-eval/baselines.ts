/**
 * The everyday set against baselines (issue 53): today's ranker, an earlier ranker (`--before DIR`,
 * a checkout of another commit, e.g. `git worktree add /tmp/before abb549c`: the ranker before issue
 * 53) and the public sets' plain BM25F (`eval.mjs`'s `bm25f` method: its minisearch must resolve, from
 * the sets' folder or TOOLSEARCH_DEPS), all given the same tools.
 *   bun scripts/search-eval/baselines.ts [--split dev|test|fresh (the default)] [--before DIR]
 * Our two rankers get each tool's toolbox and its description too, as a user's configuration gives
 * them; BM25F takes neither.
 */
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, resolve } from "node:path";
import { ToolIndex } from "../../src/search/index.ts";
import { Sets, score, type Scores, setsFolder } from "./sets.ts";
import { Everyday, everydaySplit, pooled } from "./everyday.ts";

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const split = everydaySplit(option("split") ?? "fresh")!;
const before = option("before");
const repoRoot = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const folder = setsFolder(repoRoot, process.env.TOOLSEARCH_DIR);
if (folder === undefined) {
  console.error("No tool-search sets found: set TOOLSEARCH_DIR or place them in ../shared/toolsearch");
  process.exit(2);
}
const everyday = new Everyday(repoRoot, new Sets(folder));
const { METHODS, key } = await import(pathToFileURL(`${folder}/eval.mjs`).href);

type Search = (query: string) => string[];
const rankers: Record<string, (corpus: "reference" | "livemcp") => Promise<Search>> = {
  now: async (corpus) => {
    const index = new ToolIndex(everyday.corpus(corpus));
    return (query) => index.search(query, { limit: 10 }).map((hit) => hit.entry.key);
  },
  ...(before && {
    before: async (corpus) => {
      const { ToolIndex: Earlier } = await import(pathToFileURL(resolve(before, "src/search/index.ts")).href);
      const index = new Earlier(everyday.corpus(corpus));
      return (query: string) => index.search(query, { limit: 10 }).map((hit: { entry: { key: string } }) => hit.entry.key);
    },
  }),
  bm25f: async (corpus) => {
    const entries = everyday.corpus(corpus);
    const tools = entries.map((e) => ({ server: e.server, tool: e.name, description: e.description ?? "", inputSchema: e.inputSchema }));
    const ranker = await METHODS.bm25f.build(tools);
    const ours = new Map(entries.map((e) => [key(e.server, e.name), e.key]));
    return (query) =>
      ranker.search(query, 10).map((id: string) => {
        const found = ours.get(id);
        // A key format of eval.mjs's own that ours does not know would score every answer wrong, silently.
        if (found === undefined) throw new Error(`BM25F answered a tool '${id}' not in the corpus`);
        return found;
      });
  },
};

const f = (x: number) => x.toFixed(3);
console.log(`everyday set, ${split}:\n\n| ranker | corpus | n | R@1 | R@5 | R@10 | routing@1 |\n|---|---|---|---|---|---|---|`);
for (const [name, make] of Object.entries(rankers)) {
  const scored = async (corpus: "reference" | "livemcp") => {
    const search = await make(corpus);
    return score(everyday.set(corpus, split), (q) => search(q.query));
  };
  const reference = await scored("reference");
  const livemcp = await scored("livemcp");
  const rows: [string, Scores][] = [["reference", reference], ["livemcp", livemcp], ["both", pooled(reference, livemcp)]];
  for (const [corpus, s] of rows) {
    console.log(`| ${name} | ${corpus} | ${s.n} | ${f(s.r1)} | ${f(s.r5)} | ${f(s.r10)} | ${f(s.routing1)} |`);
  }
}
