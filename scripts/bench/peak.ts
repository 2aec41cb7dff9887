/**
 * Figure 5's memory: the workbench's resident memory at the peak of relaying one 32 MiB result.
 * Each run is a fresh workbench with toolbox `one` open that makes that one call, and the figure is
 * its VmHWM (the kernel's high-water mark of VmRSS) read after the call. The mark is exact where
 * polling VmRSS every few ms could miss a short peak, and on a fresh process nothing before the
 * call comes near it (initialize and open_toolbox peak at the RSS they leave).
 */
import { type BenchSetup, textOf, viaWorkbench } from "./setup.ts";
import type { Target } from "./targets.ts";
import { BUDGET_MS, type Plan } from "./plan.ts";
import { median, MiB } from "./stats.ts";
import { residentBytes } from "./memory.ts";

export const PEAK_BLOB_MIB = 32;

export interface PeakFigures {
  blobMiB: number;
  /** VmRSS with the toolbox open, before the call (median). */
  beforeMiB: number;
  /** VmHWM after the call (median), and each run's. */
  peakMiB: number;
  peakSamples: number[];
}

export async function measureBlobPeak(target: Target, setup: BenchSetup, plan: Plan): Promise<PeakFigures> {
  const before: number[] = [];
  const peaks: number[] = [];
  const bytes = PEAK_BLOB_MIB * MiB;
  for (let run = 0; run < plan.peakRuns; run++) {
    const workbench = await viaWorkbench(target, setup);
    try {
      before.push(residentBytes(workbench.client.pid) / MiB);
      const result = await workbench.callTool("blob", { bytes }, BUDGET_MS.blobCall);
      if (textOf(result).length !== bytes) throw new Error(`blob of ${bytes} bytes came back with ${textOf(result).length}`);
      peaks.push(residentBytes(workbench.client.pid, "VmHWM") / MiB);
    } finally {
      await workbench.close();
    }
  }
  return { blobMiB: PEAK_BLOB_MIB, beforeMiB: median(before), peakMiB: median(peaks), peakSamples: peaks };
}
