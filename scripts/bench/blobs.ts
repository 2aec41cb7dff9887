/** Figure 5: one large tool result through use_tool, against the same result read directly. */
import { performance } from "node:perf_hooks";
import { textOf } from "./setup.ts";
import type { Caller } from "./calls.ts";
import { BUDGET_MS, type Plan } from "./plan.ts";
import { median, MiB } from "./stats.ts";
import type { Pair } from "./calls.ts";

export interface BlobFigure {
  mib: number;
  workbenchMs: number;
  directMs: number;
  ratio: number;
  /** Set when the call failed (e.g. over the message limit): the figure is then missing. */
  error?: string;
}

export interface BlobFigures {
  sizes: BlobFigure[];
  /** Workbench time of 32 MiB over 8 MiB: 4 is linear. */
  ratio32over8: number;
}

/**
 * Every size in each round, direct then workbench, so that a noisy moment on a shared machine
 * spreads over all sizes instead of bending one of them (and the 32/8 ratio with it).
 */
export async function measureBlobs(pair: Pair, plan: Plan): Promise<BlobFigures> {
  const times = new Map(plan.blobMiB.map((mib) => [mib, { workbench: [] as number[], direct: [] as number[] }]));
  const errors = new Map<number, string>();
  for (let round = 0; round < plan.blobRepeats; round++) {
    for (const [mib, sample] of times) {
      if (errors.has(mib)) continue;
      try {
        sample.direct.push(await timedBlob(pair.direct, mib * MiB));
        sample.workbench.push(await timedBlob(pair.workbench, mib * MiB));
      } catch (error) {
        errors.set(mib, (error instanceof Error ? error.message : String(error)).slice(0, 300));
      }
    }
  }
  const sizes = [...times].map(([mib, sample]) => blobFigure(mib, sample, errors.get(mib)));
  const at = (mib: number) => sizes.find((size) => size.mib === mib)?.workbenchMs ?? Number.NaN;
  return { sizes, ratio32over8: at(32) / at(8) };
}

function blobFigure(mib: number, sample: { workbench: number[]; direct: number[] }, error?: string): BlobFigure {
  const directMs = median(sample.direct);
  if (error) return { mib, workbenchMs: Number.NaN, directMs, ratio: Number.NaN, error };
  const workbenchMs = median(sample.workbench);
  return { mib, workbenchMs, directMs, ratio: workbenchMs / directMs };
}

/** Milliseconds from request to the parsed result, which must hold exactly `bytes` of text. */
async function timedBlob(endpoint: Caller, bytes: number): Promise<number> {
  const began = performance.now();
  const result = await endpoint.callTool("blob", { bytes }, BUDGET_MS.blobCall);
  const elapsed = performance.now() - began;
  const length = textOf(result).length;
  if (length !== bytes) throw new Error(`blob of ${bytes} bytes came back with ${length}`);
  return elapsed;
}
