/** The bench's command line: --target bun|deno|bin, --quick, --context, --chain, --search, --out PATH. */
import { TARGETS, type Target } from "./targets.ts";

export interface BenchArgs {
  target: Target;
  quick: boolean;
  out?: string;
  /** Figure 7 only (context cost): quick, and what issue 14's ratios come from. */
  context: boolean;
  /** Figure 8 only (issue 28): the chain task through use_tool and through run_code. */
  chain: boolean;
  /** Tool search only (issue 39): the ranker's figures on the public sets and its time per query. */
  search: boolean;
}

export const USAGE = "usage: bench.ts [--target bun|deno|bin] [--quick] [--context] [--chain] [--search] [--out PATH]";

/** Throws with a one-line message for anything it does not know. */
export function parseBenchArgs(argv: string[]): BenchArgs {
  const args: BenchArgs = { target: "bun", quick: false, context: false, chain: false, search: false };
  for (let index = 0; index < argv.length; index++) {
    const [flag, inline] = argv[index].split(/=(.*)/s, 2);
    const value = () => inline ?? argv[++index] ?? missing(flag);
    switch (flag) {
      case "--target":
        args.target = targetOf(value());
        break;
      case "--quick":
        args.quick = true;
        break;
      case "--context":
        args.context = true;
        break;
      case "--chain":
        args.chain = true;
        break;
      case "--search":
        args.search = true;
        break;
      case "--out":
        args.out = value();
        break;
      default:
        throw new Error(`unknown argument '${argv[index]}'; ${USAGE}`);
    }
  }
  return args;
}

function targetOf(value: string): Target {
  if ((TARGETS as readonly string[]).includes(value)) return value as Target;
  throw new Error(`--target must be one of ${TARGETS.join(", ")}, not '${value}'`);
}

function missing(flag: string): never {
  throw new Error(`${flag} needs a value; ${USAGE}`);
}
