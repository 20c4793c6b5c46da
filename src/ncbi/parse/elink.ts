/**
 * ELink XML (eLinkResult, DTDs 2002–2010) → ELinkResult.
 * LinkSetDb blocks with the same LinkName are merged across LinkSets (one LinkSet per source id
 * when ids are sent as id=1&id=2), so `linkSets` is keyed by LinkName as the type promises; a
 * target reached from two sources is listed once, at its first position.
 * Replies without LinkSetDb (no links, or cmd=llinks/acheck/ncheck) give `linkSets: []`.
 */
import type { ELinkLink, ELinkResult } from "../types.js";
import {
  child,
  childText,
  children,
  errorTexts,
  entrezError,
  parseEutilsXml,
  text,
} from "./common.js";

const UTILITY = "ELink";

type LinkSet = ELinkResult["linkSets"][number];

export function parseELink(xml: string): ELinkResult {
  const root = parseEutilsXml(xml, UTILITY, "eLinkResult");
  const linkSetNodes = children(root, "LinkSet");
  const errors = [...errorTexts(root), ...linkSetNodes.flatMap(errorTexts)];
  if (errors.length > 0) throw entrezError(UTILITY, errors);

  const sourceIds = new Set<string>();
  const byName = new Map<string, { set: LinkSet; seen: Set<string> }>();
  for (const linkSet of linkSetNodes) {
    for (const id of sourceIdsOf(linkSet)) sourceIds.add(id);
    for (const db of children(linkSet, "LinkSetDb")) {
      const linkName = childText(db, "LinkName") ?? "";
      let entry = byName.get(linkName);
      if (!entry) {
        entry = {
          set: { linkName, dbTo: childText(db, "DbTo") ?? "", links: [] },
          seen: new Set(),
        };
        byName.set(linkName, entry);
      }
      for (const link of children(db, "Link").map(toLink)) {
        if (link.pmid === "" || entry.seen.has(link.pmid)) continue;
        entry.seen.add(link.pmid);
        entry.set.links.push(link);
      }
    }
  }
  return { sourceIds: [...sourceIds], linkSets: [...byName.values()].map((e) => e.set) };
}

function toLink(node: unknown): ELinkLink {
  const raw = childText(node, "Score");
  const score = raw === null ? null : Number(raw);
  return {
    pmid: childText(node, "Id") ?? "",
    score: score !== null && Number.isFinite(score) ? score : null,
  };
}

/** Source ids sit in IdList (neighbor modes) or, for llinks/acheck/ncheck, in IdUrlList/IdCheckList. */
function sourceIdsOf(linkSet: unknown): string[] {
  const idUrlSets = children(child(linkSet, "IdUrlList"), "IdUrlSet");
  const idCheck = child(linkSet, "IdCheckList");
  return [
    ...children(child(linkSet, "IdList"), "Id"),
    ...idUrlSets.flatMap((s) => children(s, "Id")),
    ...children(idCheck, "Id"),
    ...children(idCheck, "IdLinkSet").flatMap((s) => children(s, "Id")),
  ]
    .map(text)
    .filter((id) => id !== "");
}
