/**
 * The three public tool-retrieval sets of ../shared/toolsearch (mcpproxy-go, MSC-Bench, LiveMCPBench),
 * read the way its eval.mjs reads them (same tools, same queries, same needs), and its scores: R@k
 * (fraction of a query's needs met in the top k), MRR and routing@1. Used by scripts/search-eval.ts
 * and by the test that holds the ranker's targets.
 */
import { existsSync, readFileSync } from "node:fs";

export interface SetTool {
  server: string;
  tool: string;
  description: string;
  inputSchema: unknown;
}

export interface SetQuery {
  id: string;
  query: string;
  /** Each need is met by any one of its tools (keys from toolKey). */
  needs: string[][];
}

export interface EvalSet {
  name: string;
  corpus: string;
  queries: SetQuery[];
}

export interface Scores {
  n: number;
  r1: number;
  r5: number;
  r10: number;
  mrr: number;
  routing1: number;
}

const SEP = "\u241f";
export const toolKey = (server: string, tool: string): string => server + SEP + tool;
const serverOfKey = (key: string): string => key.slice(0, key.indexOf(SEP));

/** Where the sets live: TOOLSEARCH_DIR, or ../shared/toolsearch beside the repository's folder. */
export function setsFolder(repoRoot: string, env: string | undefined): string | undefined {
  const folder = env ?? `${repoRoot}/../../shared/toolsearch`;
  const candidates = [folder, `${repoRoot}/../shared/toolsearch`];
  return candidates.find((path) => existsSync(`${path}/eval.mjs`) && existsSync(`${path}/mcpproxy`));
}

export class Sets {
  readonly dir: string;
  readonly #corpora = new Map<string, SetTool[]>();
  constructor(dir: string) {
    this.dir = dir;
  }

  #json(path: string): any {
    return JSON.parse(readFileSync(`${this.dir}/${path}`, "utf8"));
  }

  corpus(name: string): SetTool[] {
    const known = this.#corpora.get(name);
    if (known) return known;
    const out: SetTool[] = [];
    if (name === "mcpproxy") {
      const schemas = new Map<string, unknown>(
        this.#json("mcpproxy/corpus_v2.tools.json").tools.map((t: any) => [t.tool_id, t.schema]),
      );
      for (const t of this.#json("mcpproxy/corpus_v1.tools.json").tools) {
        out.push({ server: t.server, tool: t.tool, description: t.description || "", inputSchema: schemas.get(t.tool_id) || { type: "object", properties: {} } });
      }
    } else if (name === "msc") {
      for (const s of this.#json("msc-bench/mcp_registry.json").servers) {
        for (const t of s.tools) out.push({ server: s.server_name, tool: t.tool_name, description: t.tool_description || "", inputSchema: t.input_schema || {} });
      }
    } else {
      for (const e of this.#json("livemcpbench/tools.json")) {
        for (const [server, v] of Object.entries<any>(e.tools)) {
          for (const t of v.tools) out.push({ server, tool: t.name, description: t.description || "", inputSchema: t.inputSchema || {} });
        }
      }
    }
    this.#corpora.set(name, out);
    return out;
  }

  /** A scored set: mcpproxy, msc-l1 … msc-l4, livemcp; `split` keeps the odd (dev) or even (test) queries. */
  set(name: string, split?: "dev" | "test"): EvalSet {
    let queries: SetQuery[];
    let corpus: string;
    if (name === "mcpproxy") {
      corpus = "mcpproxy";
      queries = this.#json("mcpproxy/retrieval_golden_v1.json").queries.map((q: any) => ({
        id: q.id,
        query: q.query,
        needs: q.labels.filter((l: any) => l.relevance >= 1).map((l: any) => [toolKey(...(l.tool_id.split(":") as [string, string]))]),
      }));
    } else if (name.startsWith("msc-l")) {
      corpus = "msc";
      queries = this.#msc(Number(name.slice(5)));
    } else if (name === "livemcp") {
      corpus = "livemcp";
      queries = this.#livemcp();
    } else throw new Error(`Unknown set "${name}"`);
    let scored = queries.filter((q) => q.needs.length > 0);
    if (split === "dev") scored = scored.filter((_, i) => i % 2 === 1);
    if (split === "test") scored = scored.filter((_, i) => i % 2 === 0);
    return { name, corpus, queries: scored };
  }

  #msc(level: number): SetQuery[] {
    const ids = new Set(this.corpus("msc").map((t) => toolKey(t.server, t.tool)));
    return this.#json(`msc-bench/level_${level}.json`).map((q: any) => {
      const needs: string[][] = [];
      const seen = new Set<string>();
      for (const step of q.ground_truth_tools || []) {
        const alts = (Array.isArray(step) ? step : [step]).map((t: any) => toolKey(t.server_name, t.tool_name));
        const ok = [...new Set<string>(alts.filter((k: string) => ids.has(k)))].sort();
        const sig = ok.join("|");
        if (ok.length && !seen.has(sig)) {
          seen.add(sig);
          needs.push(ok);
        }
      }
      return { id: `L${level}-${q.query_id}`, query: q.query, needs };
    });
  }

  #livemcp(): SetQuery[] {
    const byName = new Map<string, string[]>();
    const byLower = new Map<string, string[]>();
    for (const t of this.corpus("livemcp")) {
      const k = toolKey(t.server, t.tool);
      byName.set(t.tool, [...(byName.get(t.tool) ?? []), k]);
      const l = t.tool.toLowerCase();
      byLower.set(l, [...(byLower.get(l) ?? []), k]);
    }
    return this.#json("livemcpbench/all_annotations.json").map((a: any) => {
      const names = String(a["Annotator Metadata"]?.Tools || "").split("\n")
        .map((l) => l.trim().replace(/^\d+[.)]\s*/, "").replace(/`/g, "").trim()).filter(Boolean);
      const needs: string[][] = [];
      const seen = new Set<string>();
      for (const n of names) {
        const alts = byName.get(n) || byLower.get(n.toLowerCase());
        if (!alts) continue;
        const sig = [...alts].sort().join("|");
        if (!seen.has(sig)) {
          seen.add(sig);
          needs.push([...alts].sort());
        }
      }
      return { id: a.task_id, query: a.Question, needs };
    });
  }
}

/** The mean scores of rankings (tool keys, best first) over a set's queries. */
export function score(set: EvalSet, rankingOf: (query: SetQuery) => string[]): Scores {
  const sum = { r1: 0, r5: 0, r10: 0, mrr: 0, routing1: 0 };
  for (const q of set.queries) {
    const ranking = rankingOf(q);
    const relevant = new Set(q.needs.flat());
    const servers = new Set([...relevant].map(serverOfKey));
    const met = (k: number) => q.needs.filter((alts) => ranking.slice(0, k).some((x) => alts.includes(x))).length / q.needs.length;
    const first = ranking.findIndex((x) => relevant.has(x));
    sum.r1 += met(1);
    sum.r5 += met(5);
    sum.r10 += met(10);
    sum.mrr += first < 0 ? 0 : 1 / (first + 1);
    sum.routing1 += ranking.length > 0 && servers.has(serverOfKey(ranking[0])) ? 1 : 0;
  }
  const n = set.queries.length || 1;
  return { n: set.queries.length, r1: sum.r1 / n, r5: sum.r5 / n, r10: sum.r10 / n, mrr: sum.mrr / n, routing1: sum.routing1 / n };
}
