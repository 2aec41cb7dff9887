/**
 * The everyday set (eval/everyday, issue 53): requests written as people ask, over the three
 * reference servers (one toolbox, as init writes it) and LiveMCPBench's tools (one toolbox per
 * category, with a user's description). Scored as the public sets are, per corpus, per half and
 * per writing style.
 */
import { readFileSync } from "node:fs";
import process from "node:process";
import { type SearchEntry, ToolIndex } from "../../src/search/index.ts";
import { type EvalSet, score, type Scores, type SetQuery, type Sets, toolKey } from "./sets.ts";

/** requests.json's two halves, and fresh.json, held out whole (its README). */
export const EVERYDAY_SPLITS = ["dev", "test", "fresh"] as const;
export type EverydaySplit = (typeof EVERYDAY_SPLITS)[number];

/** A split named on a command line (`--split`); an unknown one ends the script, saying which are known. */
export function everydaySplit(name: string | undefined): EverydaySplit | undefined {
  if (name === undefined || (EVERYDAY_SPLITS as readonly string[]).includes(name)) return name as EverydaySplit | undefined;
  console.error(`Unknown split '${name}': ${EVERYDAY_SPLITS.join(", ")}`);
  process.exit(2);
}

/** The public sets' half reported beside an everyday split: the fresh set has none of its own, so their test half. */
export function publicHalf(split: EverydaySplit | undefined): "dev" | "test" | undefined {
  return split === "fresh" ? "test" : split;
}

export interface EverydayItem {
  id: string;
  group: string;
  style: string;
  corpus: "reference" | "livemcp";
  split: EverydaySplit;
  query: string;
  needs: string[][];
}

export interface EverydayEntry extends SearchEntry {
  key: string;
}

export class Everyday {
  readonly items: EverydayItem[];
  readonly #dir: string;
  readonly #sets: Sets;
  readonly #corpora = new Map<string, EverydayEntry[]>();

  constructor(repoRoot: string, sets: Sets) {
    this.#dir = `${repoRoot}/eval/everyday`;
    this.#sets = sets;
    this.items = [...this.#json("requests.json").items, ...this.#json("fresh.json").items];
  }

  #json(name: string): any {
    return JSON.parse(readFileSync(`${this.#dir}/${name}`, "utf8"));
  }

  /** The tools of a corpus as a user's configuration would hold them. */
  corpus(name: "reference" | "livemcp"): EverydayEntry[] {
    const known = this.#corpora.get(name);
    if (known) return known;
    const groups = this.#json("toolboxes.json");
    const out: EverydayEntry[] = [];
    if (name === "reference") {
      const { toolbox, description } = groups.reference;
      for (const [server, tools] of Object.entries<any[]>(this.#json("reference-tools.json").servers)) {
        for (const t of tools) {
          out.push({
            toolbox,
            toolboxDescription: description || undefined,
            server,
            name: t.name,
            description: t.description,
            inputSchema: t.inputSchema,
            key: toolKey(server, t.name),
          });
        }
      }
    } else {
      const category = new Map<string, string>();
      const listing = JSON.parse(readFileSync(`${this.#sets.dir}/livemcpbench/tools.json`, "utf8"));
      for (const e of listing) for (const server of Object.keys(e.tools)) category.set(server, e.category);
      for (const t of this.#sets.corpus("livemcp")) {
        const group = groups.livemcp[category.get(t.server) ?? ""] ?? { toolbox: "other", description: "" };
        out.push({
          toolbox: group.toolbox,
          toolboxDescription: group.description,
          server: t.server,
          name: t.tool,
          description: t.description,
          inputSchema: t.inputSchema,
          key: toolKey(t.server, t.tool),
        });
      }
    }
    this.#corpora.set(name, out);
    return out;
  }

  /** The items of one corpus, half and style as a set eval can score (no half: requests.json's two). */
  set(corpus: "reference" | "livemcp", split?: EverydaySplit, style?: string): EvalSet {
    const inSplit = (i: EverydayItem) => (split === undefined ? i.split !== "fresh" : i.split === split);
    const queries: SetQuery[] = this.items
      .filter((i) => i.corpus === corpus && inSplit(i) && (style === undefined || i.style === style))
      .map((i) => ({ id: i.id, query: i.query, needs: i.needs.map((alts) => alts.map(keyOf)) }));
    return { name: `everyday-${corpus}`, corpus, queries };
  }
}

const keyOf = (id: string): string => toolKey(id.slice(0, id.indexOf("/")), id.slice(id.indexOf("/") + 1));

export interface EverydayResult extends Scores {
  set: string;
}

/** Scores of the ranker per corpus and both together, for one half (or both), and per style. */
export function evaluateEveryday(everyday: Everyday, split?: EverydaySplit, byStyle = false): EverydayResult[] {
  const out: EverydayResult[] = [];
  const indexes = { reference: new ToolIndex(everyday.corpus("reference")), livemcp: new ToolIndex(everyday.corpus("livemcp")) };
  const run = (corpus: "reference" | "livemcp", style?: string) => {
    const index = indexes[corpus];
    return score(everyday.set(corpus, split, style), (q) => index.search(q.query, { limit: 10 }).map((hit) => hit.entry.key));
  };
  const parts: [string, string | undefined][] = [["", undefined]];
  if (byStyle) { for (const style of ["C", "T", "G", "N", "L"]) parts.push([` ${style}`, style]); }
  for (const [suffix, style] of parts) {
    const reference = run("reference", style);
    const livemcp = run("livemcp", style);
    out.push({ set: `everyday-reference${suffix}`, ...reference }, { set: `everyday-livemcp${suffix}`, ...livemcp });
    out.push({ set: `everyday-all${suffix}`, ...pooled(reference, livemcp) });
  }
  return out;
}

/** Two sets' scores as one, each weighted by its number of requests. */
export function pooled(a: Scores, b: Scores): Scores {
  const n = a.n + b.n || 1;
  const mix = (x: number, y: number) => (x * a.n + y * b.n) / n;
  return {
    n: a.n + b.n,
    r1: mix(a.r1, b.r1),
    r5: mix(a.r5, b.r5),
    r10: mix(a.r10, b.r10),
    mrr: mix(a.mrr, b.mrr),
    routing1: mix(a.routing1, b.routing1),
  };
}
