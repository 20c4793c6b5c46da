/**
 * Measures a server process's own event-loop delay: `node --import <this file> src/main.ts`.
 * perf_hooks.monitorEventLoopDelay samples the loop every LOOP_PROBE_RESOLUTION_MS (10 ms by
 * default); on SIGUSR2 the process writes one stderr line `loop-probe {"p99","max","samples"}`
 * (delays in ms: the histogram's intervals less the resolution) and starts a new histogram, so a
 * driver brackets a call with two signals (bench/sections/live.ts).
 */
import { monitorEventLoopDelay } from "node:perf_hooks";

const resolution = Number(process.env.LOOP_PROBE_RESOLUTION_MS ?? 10);
const histogram = monitorEventLoopDelay({ resolution });
histogram.enable();
const delay = (ns) => Math.max(0, ns / 1e6 - resolution);

process.on("SIGUSR2", () => {
  const out = {
    p99: delay(histogram.percentile(99)),
    max: delay(histogram.max),
    samples: histogram.count,
  };
  histogram.reset();
  process.stderr.write(`loop-probe ${JSON.stringify(out)}\n`);
});
