/**
 * Links between synthetic records, all derived from shared topics:
 * - "similar" (pubmed_pubmed): same-topic records scored like NCBI's neighbour scores, the
 *   record itself first with the top score (NCBI lists it too);
 * - references / cited-by: a record cites a few same-topic records created before it and
 *   entered earlier. Both directions are computed from one rule over an append-only member list,
 *   so `citedBy` is exactly the inverse of `referencesOf`, and records added later never change
 *   the reference lists of older ones (which would change their content without an LR bump).
 */
import { Rng, STREAM, mix } from "./synth-random.js";

export interface LinkView {
  readonly seed: number;
  topicOf(index: number): number;
  termOf(index: number): number;
  edatOf(index: number): number;
  /** Same-topic record indices in ascending index order (append-only). */
  members(topic: number): readonly number[];
  /** Position of `index` within members(topicOf(index)). */
  positionOf(index: number): number;
}

/** How far along the member list a reference may reach, in positions. */
const REACH = 200;
const CANDIDATES = 60;
const YEAR_MS = 365.25 * 86_400_000;

export function referencesOf(view: LinkView, index: number): number[] {
  const rng = Rng.of(view.seed, index, STREAM.refs);
  if (rng.chance(0.4)) return [];
  const count = rng.int(3, 12);
  const list = view.members(view.topicOf(index));
  const edat = view.edatOf(index);
  const pos = view.positionOf(index);
  const candidates: number[] = [];
  for (let p = pos - 1; p >= 0 && p >= pos - REACH && candidates.length < CANDIDATES; p--) {
    const other = list[p];
    if (other !== undefined && view.edatOf(other) < edat) candidates.push(other);
  }
  return rng.sample(candidates, count).sort((a, b) => a - b);
}

export function citedBy(view: LinkView, index: number): number[] {
  const list = view.members(view.topicOf(index));
  const pos = view.positionOf(index);
  const out: number[] = [];
  for (let p = pos + 1; p < list.length && p <= pos + REACH; p++) {
    const other = list[p];
    if (other !== undefined && referencesOf(view, other).includes(index)) out.push(other);
  }
  // NCBI lists citing articles newest first.
  return out.sort((a, b) => view.edatOf(b) - view.edatOf(a) || b - a);
}

/** Scores in NCBI's range (tens of millions); symmetric in the pair, deterministic. */
function score(view: LinkView, a: number, b: number): number {
  if (a === b) return 99_000_000;
  const sameTerm = view.termOf(a) === view.termOf(b) ? 0.25 : 0;
  const years = Math.abs(view.edatOf(a) - view.edatOf(b)) / YEAR_MS;
  const closeness = 0.2 / (1 + years);
  const jitter = (mix(view.seed, Math.min(a, b), Math.max(a, b)) % 10_000) / 10_000;
  return Math.floor(20_000_000 + 70_000_000 * (sameTerm + closeness + 0.55 * jitter));
}

export function neighbours(
  view: LinkView,
  index: number,
  limit = 100,
): { index: number; score: number }[] {
  const scored = view
    .members(view.topicOf(index))
    .map((other) => ({ index: other, score: score(view, index, other) }));
  scored.sort((x, y) => y.score - x.score || x.index - y.index);
  return scored.slice(0, limit + 1);
}
