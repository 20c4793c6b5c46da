/**
 * The two prompts through a real MCP client: each returns a ready PubMed query string that is
 * syntactically balanced and carries the given terms, built deterministically.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import { conceptsFromQuestion, isBalanced } from "../../src/prompts/query.js";
import { startHarness, type Harness } from "../helpers/mcp.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function prompt(name: string, args: Record<string, string>) {
  const res: GetPromptResult = await h.client.getPrompt({ name, arguments: args });
  expect(res.messages).toHaveLength(1);
  const message = res.messages[0]!;
  expect(message.role).toBe("user");
  const text = message.content.type === "text" ? message.content.text : "";
  const query = /Ready PubMed query:\n```\n(.+)\n```/.exec(text)?.[1];
  if (!query) throw new Error(`no query block in:\n${text}`);
  return { text, query };
}

const block = (...terms: string[]) =>
  `(${terms.map((t) => `"${t}"[MeSH Terms] OR "${t}"[tiab]`).join(" OR ")})`;

describe("prompts/list", () => {
  it("offers pico_search and systematic_review_plan with their arguments", async () => {
    const { prompts } = await h.client.listPrompts();
    const shape = prompts.map((p) => [
      p.name,
      p.arguments?.map((a) => [a.name, a.required ?? false]),
    ]);
    expect(shape).toEqual([
      [
        "pico_search",
        [
          ["population", true],
          ["intervention", true],
          ["comparison", false],
          ["outcome", false],
          ["studyType", false],
        ],
      ],
      [
        "systematic_review_plan",
        [
          ["question", true],
          ["concepts", false],
          ["studyType", false],
          ["yearFrom", false],
        ],
      ],
    ]);
  });
});

describe("pico_search", () => {
  it("ORs synonyms across MeSH and title/abstract, ANDs the PICO elements, adds the design filter", async () => {
    const { text, query } = await prompt("pico_search", {
      population: "type 2 diabetes | T2DM",
      intervention: "metformin",
      comparison: "sulfonylureas",
      outcome: "cardiovascular mortality",
      studyType: "rct",
    });
    expect(query).toBe(
      [
        block("type 2 diabetes", "T2DM"),
        block("metformin"),
        block("sulfonylureas"),
        block("cardiovascular mortality"),
        "randomized controlled trial[pt]",
      ].join(" AND "),
    );
    expect(isBalanced(query)).toBe(true);
    expect(text).toContain("pubmed_search");
  });

  it("leaves out absent elements and the filter for studyType any", async () => {
    const { query } = await prompt("pico_search", {
      population: "children",
      intervention: "inhaled steroids",
      outcome: "",
    });
    expect(query).toBe(`${block("children")} AND ${block("inhaled steroids")}`);
  });

  it("keeps the query balanced whatever the input holds, and keeps MeSH commas", async () => {
    const { query } = await prompt("pico_search", {
      population: 'Diabetes Mellitus, Type 2 | "adult onset" (diabetes',
      intervention: "metformin[tiab]) OR insulin",
      studyType: "systematic_review",
    });
    expect(isBalanced(query)).toBe(true);
    expect(query).toContain('"Diabetes Mellitus, Type 2"[MeSH Terms]');
    expect(query).toContain('"adult onset diabetes"[tiab]');
    expect(query).toContain(
      '("metformin"[MeSH Terms] OR "metformin"[tiab] OR "insulin"[MeSH Terms]',
    );
    expect(query).toMatch(/AND \(systematic review\[pt\] OR meta-analysis\[pt\]\)$/);
  });

  it("refuses a missing population and an unknown study type", async () => {
    await expect(
      h.client.getPrompt({ name: "pico_search", arguments: { intervention: "x" } }),
    ).rejects.toThrow(/population/);
    await expect(
      h.client.getPrompt({
        name: "pico_search",
        arguments: { population: " ", intervention: "x" },
      }),
    ).rejects.toThrow(/population is required/);
    await expect(
      h.client.getPrompt({
        name: "pico_search",
        arguments: { population: "a", intervention: "b", studyType: "anecdote" },
      }),
    ).rejects.toThrow(/studyType must be one of/);
  });

  it("takes an argument named in another case or separator style, and refuses one it does not have", async () => {
    const canonical = await prompt("pico_search", {
      population: "adults",
      intervention: "metformin",
      studyType: "rct",
    });
    const restyled = await prompt("pico_search", {
      Population: "adults",
      INTERVENTION: "metformin",
      study_type: "rct",
    });
    expect(restyled.text).toBe(canonical.text);
    await expect(
      h.client.getPrompt({
        name: "pico_search",
        arguments: { population: "adults", intervention: "metformin", drug: "x" },
      }),
    ).rejects.toThrow(
      "Prompt pico_search has no argument drug; its arguments: population, intervention, comparison, outcome, studyType.",
    );
    await expect(
      h.client.getPrompt({
        name: "pico_search",
        arguments: { population: "adults", Population: "children", intervention: "metformin" },
      }),
    ).rejects.toThrow(
      "Prompt pico_search Population names population, which is given as well; keep one of the two; its arguments:",
    );
  });
});

describe("systematic_review_plan", () => {
  it("derives concepts from the question and plans the search with this server's tools", async () => {
    const { text, query } = await prompt("systematic_review_plan", {
      question: "Does metformin reduce cardiovascular mortality in adults with type 2 diabetes?",
      yearFrom: "2010",
      studyType: "rct",
    });
    expect(query).toBe(
      [
        block("metformin"),
        block("cardiovascular mortality"),
        block("adults"),
        block("type 2 diabetes"),
        "randomized controlled trial[pt]",
        "2010:3000[dp] NOT (animals[mh] NOT humans[mh])",
      ].join(" AND "),
    );
    expect(isBalanced(query)).toBe(true);
    // With the review tools offered, the plan runs as a review (docs/reviews.md).
    for (const tool of [
      "pubmed_spell",
      "pubmed_search",
      "review_create",
      "review_add",
      "review_screen",
      "review_decide",
      "review_status",
      "review_export",
    ]) {
      expect(text).toContain(tool);
    }
    expect(text).toContain('"name": "metformin"');
  });

  it("uses given concepts and their synonyms as written", async () => {
    const { query } = await prompt("systematic_review_plan", {
      question: "Exercise for depression in older people",
      concepts:
        "exercise | physical activity; depression | depressive disorder; aged | older adults",
    });
    expect(query).toBe(
      `${block("exercise", "physical activity")} AND ${block("depression", "depressive disorder")} AND ` +
        `${block("aged", "older adults")} NOT (animals[mh] NOT humans[mh])`,
    );
  });

  it("refuses a malformed year", async () => {
    await expect(
      h.client.getPrompt({
        name: "systematic_review_plan",
        arguments: { question: "aspirin and stroke", yearFrom: "last year" },
      }),
    ).rejects.toThrow(/yearFrom must be a year/);
  });
});

describe("query helpers", () => {
  it("isBalanced catches unbalanced parentheses, brackets and quotes", () => {
    expect(isBalanced('("a"[tiab] OR b[mh]) AND c')).toBe(true);
    expect(isBalanced('("a"[tiab] OR b[mh] AND c')).toBe(false);
    expect(isBalanced('"a[tiab]')).toBe(false);
    expect(isBalanced("a[tiab)]")).toBe(false);
  });

  it("conceptsFromQuestion drops question words and splits on relations", () => {
    expect(
      conceptsFromQuestion("What is the effect of exercise on depression in older adults?"),
    ).toEqual(["exercise", "depression", "older adults"]);
  });
});
