/**
 * Each technique's effect, measured by turning it off (its weight 0) and scoring again: the
 * everyday set's given half and the public sets' (mcpproxy, MSC level 2, LiveMCPBench). For the
 * report only: settings are chosen on dev halves (tune.ts), this reads whatever half it is given.
 */
import { TUNING } from "../../src/search/index.ts";
import type { Sets } from "./sets.ts";
import { evaluateSets } from "./run.ts";
import { evaluateEveryday, type Everyday, type EverydaySplit, publicHalf } from "./everyday.ts";

const TECHNIQUES: [string, (keyof typeof TUNING)[]][] = [
  ["WordNet synonyms", ["thesaurusWeight"]],
  ["other languages", ["foreignWeight"]],
  ["URL, file name, path", ["shapeWeight"]],
  ["who/where ask to find", ["questionWeight"]],
];

export function ablate(everyday: Everyday, sets: Sets, split?: EverydaySplit): string {
  const f = (x: number) => x.toFixed(3);
  const line = (name: string) => {
    const all = evaluateEveryday(everyday, split).find((r) => r.set === "everyday-all")!;
    const [p, m, l] = evaluateSets(sets, ["mcpproxy", "msc-l2", "livemcp"], publicHalf(split));
    return `| ${name} | ${f(all.r1)} | ${f(all.r5)} | ${f(all.routing1)} | ${f(p.r1)} / ${f(p.r5)} | ${f(m.r1)} | ${f(l.r10)} |`;
  };
  const lines = [
    "| without | everyday R@1 | R@5 | routing@1 | mcpproxy R@1 / R@5 | msc-l2 R@1 | livemcp R@10 |",
    "|---|---|---|---|---|---|---|",
    line("(nothing: all on)"),
  ];
  for (const [name, keys] of TECHNIQUES) {
    const saved = keys.map((key) => TUNING[key]);
    for (const key of keys) (TUNING as Record<string, unknown>)[key] = 0;
    lines.push(line(name));
    keys.forEach((key, i) => ((TUNING as Record<string, unknown>)[key] = saved[i]));
  }
  return lines.join("\n");
}
