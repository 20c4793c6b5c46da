/** Memory figures in MB (1 MB = 1,048,576 bytes). */
import { readFileSync } from "node:fs";

const MB = 1024 * 1024;

/**
 * This process's own peak resident set: VmHWM from /proc (Linux). Not getrusage's ru_maxrss, which
 * Linux carries over an exec from the process that forked it: a child spawned by a parent of
 * 420 MB reports at least 420 MB however little it uses (the bench's children did, in a full run,
 * once the parent had grown). Elsewhere ru_maxrss, with that caveat.
 */
export function peakRssMb(): number {
  try {
    const kb = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (kb !== undefined) return (Number(kb) * 1024) / MB;
  } catch {
    // no /proc: fall through
  }
  return (process.resourceUsage().maxRSS * 1024) / MB;
}

export function rssMb(): number {
  return process.memoryUsage().rss / MB;
}

/**
 * Resident set (VmRSS), or with `field` "VmHWM" its peak, of another process, from /proc (Linux);
 * null where /proc is not available.
 */
export function rssOfPidMb(pid: number, field: "VmRSS" | "VmHWM" = "VmRSS"): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(status)?.[1];
    return kb === undefined ? null : (Number(kb) * 1024) / MB;
  } catch {
    return null;
  }
}
