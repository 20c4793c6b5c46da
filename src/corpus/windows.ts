/**
 * Entrez-date (EDAT) windows at day granularity, the resolution ESearch's mindate/maxdate have.
 */

const DAY_MS = 86_400_000;

/** Days since the epoch (UTC). */
export type Day = number;

export const dayOf = (d: Date): Day => Math.floor(d.getTime() / DAY_MS);

/** ESearch's date format, YYYY/MM/DD. */
export function entrezDay(day: Day): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10).replace(/-/g, "/");
}

/** The last instant of a day, capped at `now` (a window ending today covers up to now only). */
export function endOfDay(day: Day, now: Date): Date {
  const end = new Date((day + 1) * DAY_MS - 1000);
  return end < now ? end : now;
}

/** The earliest day a first sync asks for: before any PubMed record's EDAT. */
export const FIRST_DAY: Day = dayOf(new Date("1800-01-01T00:00:00Z"));

export function splitWindow(from: Day, to: Day): [[Day, Day], [Day, Day]] {
  const mid = from + Math.floor((to - from) / 2);
  return [
    [from, mid],
    [mid + 1, to],
  ];
}
