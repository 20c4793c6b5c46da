/**
 * Figures as the report states them: every figure is a median over repeated runs with min and max,
 * and every comparison is a ratio of two figures measured in the same run (per repetition, then
 * summarised the same way).
 */

export interface Figure {
  /** Stable id, e.g. "sync.pglite.10000.records_per_s". */
  key: string;
  label: string;
  unit: string;
  median: number;
  min: number;
  max: number;
  /** Repetitions behind the figure. */
  n: number;
}

export interface Ratio extends Figure {
  /** What is divided by what, e.g. "parseEFetch time / xml2js time". */
  definition: string;
}

export interface SectionResult {
  title: string;
  figures: Figure[];
  ratios: Ratio[];
  notes: string[];
  /** Set when the section could not run here (e.g. no PostgreSQL); figures may be partial. */
  skipped?: string;
  /** Set when the section failed; the run then exits non-zero. */
  error?: string;
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Linear interpolation between closest ranks (numpy's default). NaN for no values. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] ?? NaN;
  const b = sorted[hi] ?? NaN;
  return a + (b - a) * (pos - lo);
}

export function figure(
  key: string,
  label: string,
  unit: string,
  values: readonly number[],
): Figure {
  return {
    key,
    label,
    unit,
    median: median(values),
    min: Math.min(...values),
    max: Math.max(...values),
    n: values.length,
  };
}

/** Ratio of two per-repetition series measured side by side (same length, same runs). */
export function ratio(
  key: string,
  label: string,
  definition: string,
  numerators: readonly number[],
  denominators: readonly number[],
): Ratio {
  const values = numerators.map((v, i) => v / (denominators[i] ?? NaN));
  return { ...figure(key, label, "×", values), definition };
}

export function emptySection(title: string): SectionResult {
  return { title, figures: [], ratios: [], notes: [] };
}

/** Runs fn `reps` times, collecting one sample object per repetition. */
export async function repeat<T>(reps: number, fn: (rep: number) => Promise<T> | T): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < reps; i++) {
    globalThis.gc?.();
    out.push(await fn(i));
  }
  return out;
}

/** Milliseconds a call takes, with its result. */
export async function timed<T>(fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}
