/**
 * PubMed's query syntax, enough of it for the offline stand-ins (fixture-pubmed.ts, the synthetic
 * ESearch): terms with an optional field tag (`word[ti]`, `"10.1136/x"[aid]`, `123[pmid]`), AND,
 * OR and NOT (upper case only, as PubMed requires), parentheses, implicit AND between adjacent
 * terms, and a trailing `*` for truncation. PubMed applies Boolean operators strictly left to
 * right with no precedence ("a OR b AND c" is "(a OR b) AND c"), and so does this parser.
 */

export type QueryNode = { op: "and" | "or" | "not"; left: QueryNode; right: QueryNode } | QueryTerm;

export interface QueryTerm {
  op: "term";
  /** Canonical field ("ti", "tiab", "aid", "pmid", "au", "1au", "ta", "dp", "vi", "ip", "pg", "all"). */
  field: string;
  /** As written, without quotes or tag. */
  text: string;
  quoted: boolean;
}

export class QuerySyntaxError extends Error {}

/** Tag spellings PubMed accepts → the canonical short tag. Unknown tags search all fields. */
const FIELDS: Record<string, string> = {
  ti: "ti",
  title: "ti",
  tiab: "tiab",
  "title/abstract": "tiab",
  aid: "aid",
  doi: "aid",
  lid: "aid",
  "article identifier": "aid",
  pmid: "pmid",
  uid: "pmid",
  au: "au",
  auth: "au",
  author: "au",
  "1au": "1au",
  "author - first": "1au",
  ta: "ta",
  jour: "ta",
  journal: "ta",
  dp: "dp",
  pdat: "dp",
  "publication date": "dp",
  vi: "vi",
  volume: "vi",
  ip: "ip",
  issue: "ip",
  pg: "pg",
  pagination: "pg",
};

type Token = { kind: "(" | ")" } | { kind: "op"; op: "and" | "or" | "not" } | QueryTerm;

const TAG = /^\[([^\]]*)\]/;

function tokenize(term: string): Token[] {
  const tokens: Token[] = [];
  let rest = term;
  const take = (n: number) => {
    const head = rest.slice(0, n);
    rest = rest.slice(n);
    return head;
  };
  const tag = () => {
    const m = TAG.exec(rest);
    if (!m) return "all";
    take(m[0].length);
    const name = (m[1] ?? "").trim().toLowerCase();
    return FIELDS[name] ?? "all";
  };
  while ((rest = rest.trimStart()) !== "") {
    const c = rest.charAt(0);
    if (c === "(" || c === ")") {
      take(1);
      tokens.push({ kind: c });
    } else if (c === '"') {
      const end = rest.indexOf('"', 1);
      if (end < 0) throw new QuerySyntaxError(`Unmatched quote in "${term}"`);
      const text = take(end + 1).slice(1, -1);
      tokens.push({ op: "term", field: tag(), text, quoted: true });
    } else if (c === "[") {
      throw new QuerySyntaxError(`A field tag with no term before it in "${term}"`);
    } else {
      const word = take(/^[^\s()"[]+/.exec(rest)?.[0].length ?? 1);
      if (word === "AND" || word === "OR" || word === "NOT") {
        tokens.push({ kind: "op", op: word.toLowerCase() as "and" | "or" | "not" });
      } else {
        tokens.push({ op: "term", field: tag(), text: word, quoted: false });
      }
    }
  }
  return tokens;
}

/** Parses a term; throws QuerySyntaxError on unbalanced parentheses or a dangling operator. */
export function parseQuery(term: string): QueryNode {
  const tokens = tokenize(term);
  let pos = 0;
  const operand = (): QueryNode => {
    const t = tokens[pos++];
    if (t === undefined) throw new QuerySyntaxError(`Query ends after an operator: "${term}"`);
    if ("op" in t && t.op === "term") return t;
    if ("kind" in t && t.kind === "(") {
      const inner = sequence();
      const close = tokens[pos++];
      if (!close || !("kind" in close) || close.kind !== ")")
        throw new QuerySyntaxError(`Unbalanced parentheses in "${term}"`);
      return inner;
    }
    const what = "kind" in t && t.kind === "op" ? t.op.toUpperCase() : ")";
    throw new QuerySyntaxError(`Unexpected ${what} in "${term}"`);
  };
  const sequence = (): QueryNode => {
    let left = operand();
    for (;;) {
      const t = tokens[pos];
      if (t === undefined || ("kind" in t && t.kind === ")")) return left;
      if ("kind" in t && t.kind === "op") {
        pos++;
        left = { op: t.op, left, right: operand() };
      } else {
        left = { op: "and", left, right: operand() };
      }
    }
  };
  if (tokens.length === 0) throw new QuerySyntaxError("Empty term");
  const tree = sequence();
  if (pos < tokens.length) throw new QuerySyntaxError(`Unbalanced parentheses in "${term}"`);
  return tree;
}

/** Every term of a query, left to right. */
export function queryTerms(node: QueryNode): QueryTerm[] {
  return node.op === "term" ? [node] : [...queryTerms(node.left), ...queryTerms(node.right)];
}

/**
 * Evaluates a query for one record. `match` answers a term: true, false, or null when PubMed would
 * ignore it (a stopword); an ignored operand drops out of its operator, and a query left with
 * nothing matches nothing.
 */
export function evaluate(node: QueryNode, match: (term: QueryTerm) => boolean | null): boolean {
  return walk(node, match) === true;
}

function walk(node: QueryNode, match: (term: QueryTerm) => boolean | null): boolean | null {
  if (node.op === "term") return match(node);
  const a = walk(node.left, match);
  // Short cuts keep a title scan from building fields the answer no longer depends on.
  if (node.op === "and" && a === false) return false;
  if (node.op === "or" && a === true) return true;
  const b = walk(node.right, match);
  if (b === null) return a;
  if (a === null) return node.op === "not" ? null : b;
  if (node.op === "and") return a && b;
  if (node.op === "or") return a || b;
  return a && !b;
}
