/**
 * Tuning on the dev halves only: `bun scripts/search-eval/tune.ts [key=value ...] [--misses]` sets
 * TUNING's keys (dotted paths), then prints one line of dev figures (the everyday set's dev half and
 * the public sets' dev halves), and with --misses the everyday dev requests whose need is not in the
 * top 5, with what came first. Never reads the test halves.
 */
import process from "node:process";
import { fileURLToPath } from "node:url";
import { dirname } from "node:path";
import { TUNING } from "../../src/search/index.ts";
import { ToolIndex } from "../../src/search/index.ts";
import { Sets, setsFolder, toolKey } from "./sets.ts";
import { evaluateSets } from "./run.ts";
import { evaluateEveryday, Everyday } from "./everyday.ts";

const repoRoot = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const args = process.argv.slice(2);
for (const arg of args.filter((a) => a.includes("="))) {
  const [path, value] = arg.split("=");
  const keys = path.split(".");
  let target: any = TUNING;
  for (const key of keys.slice(0, -1)) target = target[key];
  target[keys.at(-1)!] = Number(value);
}
const sets = new Sets(setsFolder(repoRoot, process.env.TOOLSEARCH_DIR)!);
const everyday = new Everyday(repoRoot, sets);
const e = evaluateEveryday(everyday, "dev");
const p = evaluateSets(sets, ["mcpproxy", "msc-l2", "livemcp"], "dev");
const f = (x: number) => x.toFixed(3);
const all = e.find((r) => r.set === "everyday-all")!;
const ref = e.find((r) => r.set === "everyday-reference")!;
const live = e.find((r) => r.set === "everyday-livemcp")!;
console.log(
  `everyday dev R@1 ${f(all.r1)} R@5 ${f(all.r5)} route ${f(all.routing1)} (ref R@5 ${f(ref.r5)} route ${f(ref.routing1)}; ` +
    `live R@5 ${f(live.r5)} route ${f(live.routing1)}) | mcpproxy ${f(p[0].r1)}/${f(p[0].r5)}/${f(p[0].routing1)} ` +
    `msc-l2 ${f(p[1].r1)} livemcp R@10 ${f(p[2].r10)}`,
);
if (args.includes("--misses")) {
  for (const corpus of ["reference", "livemcp"] as const) {
    const index = new ToolIndex(everyday.corpus(corpus));
    for (const q of everyday.set(corpus, "dev").queries) {
      const ranking = index.search(q.query, { limit: 5 }).map((h) => h.entry.key);
      if (q.needs.every((alts) => ranking.some((k) => alts.includes(k)))) continue;
      const show = (k: string) => k.replace("\u241f", "/");
      console.log(
        `${q.id} "${q.query}" wants ${q.needs.map((a) => show(a[0])).join(" + ")}; got ${ranking.slice(0, 3).map(show).join(", ")}`,
      );
    }
  }
}
void toolKey;
