/**
 * MeSH indexing for MEDLINE-status synthetic records: the topic's descriptors (the first one a
 * major topic, with qualifiers), Humans or Animals, check tags and design descriptors — sorted
 * by descriptor name, as PubMed lists them.
 */
import type { Rng } from "./synth-random.js";
import type { Design } from "./synth-text.js";
import type { SynthMeshHeading } from "./synth-types.js";
import type { MeshPair, Topic } from "./synth-vocab.js";

const QUALIFIERS: MeshPair[] = [
  ["Q000188", "drug therapy"],
  ["Q000627", "therapeutic use"],
  ["Q000453", "epidemiology"],
  ["Q000235", "genetics"],
  ["Q000378", "metabolism"],
  ["Q000517", "prevention & control"],
  ["Q000150", "complications"],
  ["Q000175", "diagnosis"],
  ["Q000494", "pharmacology"],
  ["Q000503", "physiopathology"],
  ["Q000628", "therapy"],
  ["Q000009", "adverse effects"],
  ["Q000401", "mortality"],
  ["Q000276", "immunology"],
];

const HUMANS: MeshPair = ["D006801", "Humans"];
const ANIMALS: MeshPair = ["D000818", "Animals"];
const ANIMAL_KINDS: MeshPair[] = [
  ["D051379", "Mice"],
  ["D008810", "Mice, Inbred C57BL"],
  ["D051381", "Rats"],
  ["D004195", "Disease Models, Animal"],
];
const AGE_SEX: MeshPair[] = [
  ["D000328", "Adult"],
  ["D008875", "Middle Aged"],
  ["D000368", "Aged"],
  ["D005260", "Female"],
  ["D008297", "Male"],
  ["D002648", "Child"],
  ["D000293", "Adolescent"],
];
const BY_DESIGN: Partial<Record<Design, MeshPair[]>> = {
  rct: [
    ["D004311", "Double-Blind Method"],
    ["D016896", "Treatment Outcome"],
  ],
  trial: [["D016896", "Treatment Outcome"]],
  observational: [
    ["D015331", "Cohort Studies"],
    ["D012189", "Retrospective Studies"],
    ["D011446", "Prospective Studies"],
    ["D012307", "Risk Factors"],
  ],
  research: [
    ["D012307", "Risk Factors"],
    ["D011788", "Quality of Life"],
  ],
};

function heading([ui, name]: MeshPair, major = false): SynthMeshHeading {
  return { ui, name, major, qualifiers: [] };
}

export function pickMesh(rng: Rng, topic: Topic, design: Design): SynthMeshHeading[] {
  const list = topic.mesh.map((pair, i) => {
    const h = heading(pair, i === 0);
    if (i === 0 || rng.chance(0.4)) {
      h.qualifiers = rng.sample(QUALIFIERS, rng.int(1, 2)).map(([qui, qname], q) => ({
        ui: qui,
        name: qname,
        // PubMed marks the major point on the qualifier when there is one.
        major: i === 0 && q === 0,
      }));
      if (i === 0) h.major = false;
    }
    return h;
  });
  if (design === "basic") {
    list.push(heading(ANIMALS), heading(rng.pick(ANIMAL_KINDS)));
  } else {
    list.push(heading(HUMANS));
    for (const tag of rng.sample(AGE_SEX, rng.int(1, 4))) list.push(heading(tag));
    if (rng.chance(0.1)) list.push(heading(ANIMALS));
  }
  for (const pair of rng.sample(BY_DESIGN[design] ?? [], rng.int(0, 2))) list.push(heading(pair));
  const seen = new Set<string>();
  return list
    .filter((h) => (seen.has(h.ui) ? false : (seen.add(h.ui), true)))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
