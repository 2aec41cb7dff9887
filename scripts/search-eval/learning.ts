/**
 * Replay of a log to show what learning from use adds (issue 53): the everyday set's requests of one
 * half, in order, as a session would see them. In each intent group the first request is the log to
 * learn from (a search, then a call of the chosen tool); the group's later requests are asked, and
 * scored with and without what was learned. A judge says which tool the model chose: the labelled
 * one (a model that picks right), or the ranker's own first result (a model that takes the first).
 * replayLog does the same on eval/everyday/log.json: requests asked twice with other values ("forget
 * everything about Bob", later "... about Alice"): every first one learned, then every later one asked.
 */
import { readFileSync } from "node:fs";
import { ChoiceMemory } from "../../src/search/choices.ts";
import { ToolIndex } from "../../src/search/index.ts";
import { score, type Scores, type SetQuery } from "./sets.ts";
import type { Everyday, EverydayEntry, EverydayItem } from "./everyday.ts";

export type Judge = "labelled" | "first-result";

export interface Replay {
  corpus: string;
  learned: number;
  asked: number;
  without: Scores;
  with: Scores;
}

const keyOf = (id: string) => id.replace("/", "\u241f");

export function replay(everyday: Everyday, split: "dev" | "test", judge: Judge, minOverlap?: number): Replay[] {
  const out: Replay[] = [];
  for (const corpus of ["reference", "livemcp"] as const) {
    const entries = everyday.corpus(corpus);
    const byKey = new Map(entries.map((entry) => [entry.key, entry]));
    const index = new ToolIndex(entries);
    const memory = new ChoiceMemory();
    const liftOf = (query: string) => {
      const lift = new Map<EverydayEntry, number>();
      for (const [key, value] of memory.lift(query, minOverlap)) {
        const entry = byKey.get(key);
        if (entry) lift.set(entry, value);
      }
      return lift;
    };
    const items = everyday.items.filter((i) => i.corpus === corpus && i.split === split);
    const seen = new Set<string>();
    const learn: EverydayItem[] = [];
    const ask: SetQuery[] = [];
    for (const item of items) {
      const needs = item.needs.map((alts) => alts.map(keyOf));
      if (seen.has(item.group)) ask.push({ id: item.id, query: item.query, needs });
      else learn.push(item);
      seen.add(item.group);
    }
    for (const item of learn) {
      const chosen = judge === "labelled"
        ? keyOf(item.needs[0][0])
        : index.search(item.query, { limit: 1, lift: liftOf(item.query) })[0]?.entry.key;
      if (chosen) memory.remember(item.query, chosen);
    }
    const set = { name: corpus, corpus, queries: ask };
    out.push({
      corpus,
      learned: learn.length,
      asked: ask.length,
      without: score(set, (q) => index.search(q.query, { limit: 10 }).map((hit) => hit.entry.key)),
      with: score(set, (q) => index.search(q.query, { limit: 10, lift: liftOf(q.query) }).map((hit) => hit.entry.key)),
    });
  }
  return out;
}

interface LogItem {
  id: string;
  corpus: "reference" | "livemcp";
  first: string;
  later: string;
  tools: string[];
}

export function replayLog(repoRoot: string, everyday: Everyday, judge: Judge): Replay[] {
  const log: LogItem[] = JSON.parse(readFileSync(`${repoRoot}/eval/everyday/log.json`, "utf8")).items;
  return (["reference", "livemcp"] as const).map((corpus) => {
    const entries = everyday.corpus(corpus);
    const byKey = new Map(entries.map((entry) => [entry.key, entry]));
    const index = new ToolIndex(entries);
    const memory = new ChoiceMemory();
    const liftOf = (query: string) =>
      new Map([...memory.lift(query)].flatMap(([key, value]) => byKey.has(key) ? [[byKey.get(key)!, value] as const] : []));
    const items = log.filter((item) => item.corpus === corpus);
    for (const item of items) {
      const chosen = judge === "labelled"
        ? keyOf(item.tools[0])
        : index.search(item.first, { limit: 1, lift: liftOf(item.first) })[0]?.entry.key;
      if (chosen) memory.remember(item.first, chosen);
    }
    const set = {
      name: corpus,
      corpus,
      queries: items.map((item) => ({ id: item.id, query: item.later, needs: [item.tools.map(keyOf)] })),
    };
    return {
      corpus,
      learned: items.length,
      asked: items.length,
      without: score(set, (q) => index.search(q.query, { limit: 10 }).map((hit) => hit.entry.key)),
      with: score(set, (q) => index.search(q.query, { limit: 10, lift: liftOf(q.query) }).map((hit) => hit.entry.key)),
    };
  });
}

export function replayTable(rows: readonly Replay[], judge: Judge): string {
  const f = (x: number) => x.toFixed(3);
  const lines = [
    `judge: ${judge}`,
    "| corpus | learned | asked | R@1 | R@5 | routing@1 | R@1 learned | R@5 learned | routing@1 learned |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.corpus} | ${r.learned} | ${r.asked} | ${f(r.without.r1)} | ${f(r.without.r5)} | ${f(r.without.routing1)} | ` +
        `${f(r.with.r1)} | ${f(r.with.r5)} | ${f(r.with.routing1)} |`,
    );
  }
  return lines.join("\n");
}
