import { z } from "zod";
import { noticeSchema } from "../../ncbi/notices.js";
import { FIELDS } from "../../trust/reference-compare.js";
import { MAX_REFERENCES, verifyReferences } from "../../trust/verify.js";
import { READ_ONLY_LIVE } from "../params.js";
import { defineTool } from "../tool.js";

/** A pasted list of 100 references, with room to spare (each reference is read up to 3,000 characters; a call's arguments hold at most 1 MiB). */
const MAX_STRING_CHARS = 50_000;

/** One reference as a string, and a PMID as a number (alone or in the list), mean what they say. */
function asReferenceList(value: unknown): unknown {
  const list = typeof value === "string" || typeof value === "number" ? [value] : value;
  if (!Array.isArray(list)) return value;
  return list.map((r) =>
    typeof r === "number" && Number.isSafeInteger(r) && r > 0 ? `PMID: ${r}` : r,
  );
}

const matchedSchema = z.object({
  title: z.string(),
  first_author: z.string().optional(),
  journal: z.string().optional(),
  year: z.string().optional(),
  /** Given only when the reference's differs. */
  volume: z.string().optional(),
  pages: z.string().optional(),
});

export const pubmedVerifyReferences = defineTool({
  name: "pubmed_verify_references",
  description:
    "Check references against PubMed: is each one real, and is it cited correctly? Takes up to " +
    "100 references as free text in any common style (Vancouver, APA, Harvard, informal " +
    '"Smith et al., Title, Journal 2019"), with or without DOI/PMID, or BibTeX/RIS entries; a ' +
    "pasted list is split. Each result is verified (one PubMed record agrees with every field " +
    "given), mismatch (differences names the wrong fields; matched is the record meant), " +
    "not_found (likely invented, or not in PubMed) or ambiguous (candidates), with the record's " +
    "retraction/correction notices. Example: " +
    '{"references": ["Smith J, Lee A. Title of the paper. N Engl J Med. 2019;380(3):100-9."]}.',
  toolset: "trust",
  annotations: { title: "Verify references against PubMed", ...READ_ONLY_LIVE },
  parameters: z.object({
    references: z
      .preprocess(
        asReferenceList,
        z
          .array(
            z.string().max(MAX_STRING_CHARS, {
              error: `must be at most ${MAX_STRING_CHARS} characters; send a long list in several calls`,
            }),
          )
          .min(1, { error: "must list at least one reference" })
          .max(MAX_REFERENCES, {
            error: `must list at most ${MAX_REFERENCES} references; send the rest in another call`,
          }),
      )
      .describe(
        `References to check (1–${MAX_REFERENCES}), one per string; a string holding a numbered ` +
          "or one-per-line list, or a BibTeX/RIS block, is split.",
      ),
  }),
  narrower: "Send fewer references per call.",
  output: z.object({
    results: z.array(
      z.object({
        /** Position among the references once lists are split. */
        index: z.int(),
        /** The reference as read, cut to 100 characters. */
        input: z.string(),
        status: z.enum(["verified", "mismatch", "not_found", "ambiguous"]),
        pmid: z.string().optional(),
        doi: z.string().optional(),
        /** For a mismatch: the record meant, as the reference should cite it. */
        matched: matchedSchema.optional(),
        differences: z.array(z.enum(FIELDS)),
        notices: z.array(noticeSchema),
        candidates: z.array(matchedSchema.extend({ pmid: z.string() })).optional(),
        /** Why a reference could not be read or compared. */
        note: z.string().optional(),
      }),
    ),
    summary: z.object({
      verified: z.int(),
      mismatch: z.int(),
      not_found: z.int(),
      ambiguous: z.int(),
      with_notices: z.int(),
    }),
    note: z.string().optional(),
    warnings: z.array(z.string()).optional(),
  }),
  execute: (args, { signal }) => verifyReferences(args.references, signal),
});
