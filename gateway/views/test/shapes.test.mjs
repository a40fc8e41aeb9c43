// The views' reading of every shape a tool may answer in (src/shapes.ts),
// under node's test runner: npm test. Shapes the server sends today come
// from real answers; the decoded and summarized ones follow the tools'
// output schemas (specs/contracts/output).
import { build } from "esbuild";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
let shapes;
let dir;

before(async () => {
  const out = await build({ entryPoints: [path.join(here, "..", "src", "shapes.ts")], bundle: true, write: false, format: "esm", logLevel: "error" });
  dir = await mkdtemp(path.join(tmpdir(), "nsip-views-"));
  const file = path.join(dir, "shapes.mjs");
  await writeFile(file, out.outputFiles[0].text);
  shapes = await import(pathToFileURL(file).href);
});
after(() => rm(dir, { recursive: true, force: true }));

const paths = (tree) => [...tree.keys()].sort();

describe("pedigreeTree", () => {
  const div = (farm, dob, sex, status) => `<div>${farm}</div><div>US Hair Index: 99.94</div><div>DOB: ${dob}</div><div>Sex: ${sex}</div><div>Status: ${status}</div>`;
  const nsip = {
    success: true,
    data: {
      lpnId: "6400322005CDD001", content: div("Twin Oaks Sheep Co.", "1/26/2005", "Female", "CULL"),
      children: [
        { lpnId: "6408462004IIG001", content: div("Little Bear Homestead", "4/7/2004", "Male", "SOLD"), children: [] },
        { lpnId: "6407552004TAI001", content: div("Twin Oaks Homestead", "2/3/2004", "Female", "DEAD"), children: [] },
      ],
    },
  };

  it("reads NSIP's own lineage, details from its HTML fragments", () => {
    const t = shapes.pedigreeTree(nsip);
    assert.deepEqual(paths(t), ["", "D", "S"]);
    assert.deepEqual(t.get("S"), { lpn: "6408462004IIG001", farm: "Little Bear Homestead", dob: "4/7/2004", sex: "Male", status: "SOLD" });
  });

  it("reads the profile's lineage, whole or as the flattened full link", () => {
    assert.deepEqual(paths(shapes.pedigreeTree({ details: {}, lineage: nsip, progeny: {} })), ["", "D", "S"]);
    const rows = [
      { path: "lineage.data.lpnId", value: "A" },
      { path: "lineage.data.children[0].lpnId", value: "B" },
      { path: "lineage.data.children[0].content", value: "<div>Farm</div><div>Sex: Male</div>" },
      { path: "lineage.data.children[1].lpnId", value: "C" },
      { path: "lineage.data.children[0].children[1].lpnId", value: "D" },
    ];
    const t = shapes.pedigreeTree({ columns: ["path", "value"], rows });
    assert.deepEqual(paths(t), ["", "D", "S", "SD"]);
    assert.equal(t.get("S").farm, "Farm");
  });

  it("reads the decoded lineage", () => {
    const t = shapes.pedigreeTree({ subject: { lpnId: "A", sire: { lpnId: "B", farm: "F", sex: "Male", dam: { lpnId: "C" } }, dam: { lpnId: "D" } } });
    assert.deepEqual(paths(t), ["", "D", "S", "SD"]);
    assert.equal(t.get("S").farm, "F");
  });

  it("reads the summary, and the full link's table", () => {
    const summary = {
      summary: true, kind: "lineage", subject: { lpn_id: "A" }, sire: { lpn_id: "B", farm: "F" }, dam: { lpn_id: "C" },
      ancestor_columns: ["path", "lpn_id"], ancestors: [["SS", "D"], ["SD", "E"], ["DS", ""]],
    };
    assert.deepEqual(paths(shapes.pedigreeTree(summary)), ["", "D", "S", "SD", "SS"]);
    const full = { columns: ["path", "generation", "lpn_id", "sex"], rows: [{ path: "", lpn_id: "A" }, { path: "S", lpn_id: "B", sex: "Male" }] };
    assert.deepEqual(paths(shapes.pedigreeTree(full)), ["", "S"]);
  });

  it("reads a profile summary's parents and grandparents", () => {
    const t = shapes.pedigreeTree({ kind: "animal_profile", animal: { lpn_id: "A" }, sire: { lpn_id: "B" }, dam: { lpn_id: "C" }, grandparents: [["SS", "D"], ["DD", "E"]] });
    assert.deepEqual(paths(t), ["", "D", "DD", "S", "SS"]);
  });

  it("finds nothing in an answer with no pedigree", () => {
    assert.equal(shapes.pedigreeTree(null).size, 0);
    assert.equal(shapes.pedigreeTree({ note: "x" }).size, 0);
  });
});

describe("animals", () => {
  const codes = (a) => a.ebvs.map((e) => e.code);

  it("reads NSIP's record: accuracy as a fraction, none for MWWT", () => {
    const [a] = shapes.animals({ success: true, data: { breed: { breedName: "Katahdin" }, gender: "Male", searchResultViewModel: {
      lpnId: "A", status: "CURRENT", progenyCount: 25, breedId: 640, bwt: 0.144, accbwt: 0.99, wwt: 0.211, accwwt: 0.35, mwwt: -1.167, usHairIndex: 98.16, srcIndex: 99.25 } } });
    assert.equal(a.lpn, "A");
    assert.deepEqual(a.ebvs, [
      { code: "BWT", value: 0.144, acc: 99, pct: null },
      { code: "WWT", value: 0.211, acc: 35, pct: null },
      { code: "MWWT", value: -1.167, acc: null, pct: null },
    ]);
  });

  it("reads the percentiles answer", () => {
    const [a] = shapes.animals({ lpn_id: "A", ebv_columns: ["code", "value", "accuracy", "top_percent"], ebvs: [["BWT", 0.1, 99, 86.9], ["MWWT", -1, null, 87.6]] });
    assert.deepEqual(a.ebvs, [{ code: "BWT", value: 0.1, acc: 99, pct: 86.9 }, { code: "MWWT", value: -1, acc: null, pct: 87.6 }]);
  });

  it("reads the decoded record and a summary's top traits", () => {
    const [d] = shapes.animals({ lpnId: "A", traits: [{ code: "BWT", value: 0.1, accuracy: 0.38, hasAccuracy: true }, { code: "MWWT", value: 1, accuracy: 0, hasAccuracy: false }] });
    assert.deepEqual(d.ebvs, [{ code: "BWT", value: 0.1, acc: 38, pct: null }, { code: "MWWT", value: 1, acc: null, pct: null }]);
    const [s] = shapes.animals({ summary: true, lpn_id: "A", top_traits: [{ code: "BWT", value: 0.1, accuracy: 99 }] });
    assert.deepEqual(s.ebvs, [{ code: "BWT", value: 0.1, acc: 99, pct: null }]);
  });

  it("reads a comparison, as objects and as compact rows", () => {
    const list = shapes.animals({ traits: ["BWT", "WWT"], animals: [
      { lpn_id: "A", ebv: [[0.1, 99], [0.2, 30]], top_percent: [5, null] },
      { lpn_id: "B", ebv: [[0.3, null], [null, null]] },
    ] });
    assert.deepEqual(list.map((a) => a.lpn), ["A", "B"]);
    assert.deepEqual(list[0].ebvs, [{ code: "BWT", value: 0.1, acc: 99, pct: 5 }, { code: "WWT", value: 0.2, acc: 30, pct: null }]);
    assert.deepEqual(codes(list[1]), ["BWT", "WWT"]);
    const compact = shapes.animals({ traits: ["BWT"], columns: ["lpn_id", "BWT", "BWT_acc"], animals: [["A", 0.1, 45]] });
    assert.deepEqual(compact[0].ebvs, [{ code: "BWT", value: 0.1, acc: 45, pct: null }]);
    // The compact table the server sends: EBVs under the trait's column,
    // percentiles beside the table, a row per animal.
    const sent = shapes.animals({ traits: ["BWT", "WWT"], columns: ["lpn_id", "sex", "BWT", "WWT"],
      animals: [["A", "Male", 0.1, 2.5], ["B", "Female", -0.2, null]], top_percent: { rows: [[12.5, 40], [88, null]] } });
    assert.deepEqual(sent.map((a) => a.ebvs.map((e) => e.pct)), [[12.5, 40], [88, null]]);
    assert.deepEqual(sent[1].ebvs.map((e) => e.value), [-0.2, null]);
  });

  it("passes over a flattened name that would reach an object's prototype", () => {
    const tree = shapes.pedigreeTree({ columns: ["path", "value"], rows: [
      { path: "lineage.__proto__.polluted", value: "yes" },
      { path: "constructor.prototype.polluted", value: "yes" },
      { path: "lineage.data.lpnId", value: "ROOT1" },
    ] });
    assert.equal({}.polluted, undefined);
    assert.equal(Object.prototype.polluted, undefined);
    assert.ok(tree instanceof Map);
  });

  it("finds nothing in an answer with no EBVs", () => {
    assert.deepEqual(shapes.animals(null), []);
    assert.deepEqual(shapes.animals({ note: "x" }), []);
  });
});

describe("readPlan", () => {
  const answer = {
    by_ram: { R1: [["E3", 0.2, 0.13]], R2: [["E1", 0.17, 0.9], ["E2", 0.16, 1.2]] },
    columns: ["ewe", "coi", "lamb_index"], max_coi: 0.25, mated: 3,
    unassigned: { "every ram's lamb would exceed max_coi": ["E4"] },
  };

  it("takes the rams and ewes as asked, in that order, and the mated pairs' rows", () => {
    const p = shapes.readPlan(answer, { ram_lpn_ids: ["R2", "R1", "R3"], ewe_lpn_ids: ["E1", "E2", "E3", "E4", "E5"] });
    assert.deepEqual(p.rams, ["R2", "R1", "R3"]);
    assert.deepEqual(p.ewes, ["E1", "E2", "E3", "E4", "E5"]);
    assert.deepEqual([...p.planned.keys()].sort(), ["R1 E3", "R2 E1", "R2 E2"]);
    assert.deepEqual(p.planned.get(shapes.key("R2", "E2")), ["E2", 0.16, 1.2]);
    assert.equal(p.maxCOI, 0.25);
  });

  it("adds the pairs a plan cut to its budget left out, from its whole table", () => {
    const cut = { by_ram: { R1: [["E3", 0.2, 0.13]] }, columns: ["ewe", "coi", "lamb_index"], max_coi: 0.25, mated: 3 };
    const p = shapes.readPlan(cut, { ram_lpn_ids: ["R1", "R2"], ewe_lpn_ids: ["E1", "E2", "E3"] });
    shapes.mergeFullPlan(p, { columns: ["ram", "ewe", "coi", "lamb_index"], rows: [
      { ram: "R1", ewe: "E3", coi: 0.2, lamb_index: 0.13 },
      { ram: "R2", ewe: "E1", coi: 0.17, lamb_index: 0.9 },
      { ram: "R2", ewe: "E2", coi: 0.16, lamb_index: 1.2 },
    ] });
    assert.deepEqual([...p.planned.keys()].sort(), ["R1 E3", "R2 E1", "R2 E2"]);
    assert.deepEqual(p.planned.get("R2 E2"), ["E2", 0.16, 1.2]);
    assert.deepEqual(p.rams, ["R1", "R2"]);
  });

  it("names an animal asked in lower case as the plan does", () => {
    const p = shapes.readPlan(answer, { ram_lpn_ids: [" r1", "R2"], ewe_lpn_ids: ["e1", "E2", "e3 "] });
    assert.deepEqual(p.rams, ["R1", "R2"]);
    assert.deepEqual(p.ewes, ["E1", "E2", "E3", "E4"]);
  });

  it("without the arguments, names the animals the answer names", () => {
    const p = shapes.readPlan(answer, {});
    assert.deepEqual(p.rams, ["R1", "R2"]);
    assert.deepEqual(p.ewes.sort(), ["E1", "E2", "E3", "E4"]);
  });

  it("reads a plan that mated no ewe", () => {
    const p = shapes.readPlan({ by_ram: {}, columns: ["ewe", "coi"], unassigned: { why: ["E1", "E2"] }, max_coi: 0.0625 }, { ram_lpn_ids: ["R1"] });
    assert.deepEqual([p.rams, p.ewes, p.planned.size], [["R1"], ["E1", "E2"], 0]);
  });
});

describe("readMatrix", () => {
  const answer = {
    coi: { R1: [0.25, ">=0.0625"], R2: ["unknown", 0] }, ewes: ["E1", "E2"], max_coi: 0.0625, over_max_coi: 2,
    not_shown: { rows: 1, which: "the ewes after the first 2" },
  };

  it("reads each ram's row in the answer's ewe order, the cells as sent", () => {
    assert.ok(shapes.isMatrix(answer));
    assert.ok(!shapes.isMatrix({ coi: 0.125, sire: {} }));
    const m = shapes.readMatrix(answer);
    assert.deepEqual([m.rams, m.ewes, m.maxCOI], [["R1", "R2"], ["E1", "E2"], 0.0625]);
    assert.deepEqual([...m.cells.entries()], [["R1 E1", 0.25], ["R1 E2", ">=0.0625"], ["R2 E1", "unknown"], ["R2 E2", 0]]);
  });

  it("adds the ewes a matrix cut to its budget left out, from its whole table", () => {
    const m = shapes.readMatrix(answer);
    shapes.mergeFullMatrix(m, { columns: ["ram", "E1", "E2", "E3"], rows: [
      { ram: "R1", E1: 0.25, E2: ">=0.0625", E3: 0.125 },
      { ram: "R2", E1: "unknown", E2: 0, E3: 0 },
    ] });
    assert.deepEqual(m.ewes, ["E1", "E2", "E3"]);
    assert.deepEqual([m.cells.get("R1 E3"), m.cells.get("R2 E3"), m.cells.size], [0.125, 0, 6]);
  });
});
