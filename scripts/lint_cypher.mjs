// Lints every Cypher statement graphanon sends with Neo4j's own Cypher front end
// (@neo4j-cypher/language-support, pinned in scripts/package.json): syntax and semantic
// analysis under Cypher 5, procedure and function signatures, deprecations, and the
// parameters each call site passes.
//
//   npm ci --prefix scripts && node scripts/lint_cypher.mjs
//
// Input: scripts/cypher_calls.json, every (statement, identifiers, parameters) the code sends,
// recorded through the unit tests' recording fake of the driver and kept current by
// tests/io/neo4j/test_neo4j_cypher.py (which fails when the code's calls and the file differ). For
// each entry this script renders the statement from cypher/<name>.cypher exactly as
// graphanon.io.cypher.load does (comment lines dropped, placeholders filled with
// backtick-quoted identifiers) and checks that it equals the text the code sent; lints it
// with exactly the parameters the call site passes; and checks that every parameter passed is
// used. Every .cypher file must be covered. A handful of known-bad statements must each be
// caught, which proves the linter still finds errors. Exit code 0 when all is well, 1 when
// anything fails (errors and warnings alike), 2 when the inputs are missing.
//
// The package declares node >= 24.11.1; the lint runs on node 20, which the CI machines have.

import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const cypherDir = join(root, "cypher");
const manifestPath = join(here, "cypher_calls.json");
const VERSION = "CYPHER 5";

let lib;
try {
  lib = await import("@neo4j-cypher/language-support");
} catch (err) {
  console.error(`lint_cypher: cannot load @neo4j-cypher/language-support (run `
    + `'npm ci --prefix scripts' first): ${err.message}`);
  process.exit(2);
}
const { lintCypherQuery, parseParameters, testData } = lib;
const pkg = JSON.parse(readFileSync(join(here, "node_modules", "@neo4j-cypher",
  "language-support", "package.json"), "utf8"));

// Procedure and function signatures: the registry of a Neo4j server that the package ships
// (testData.mockSchema), so unknown procedures, wrong arities and deprecated functions are
// errors or warnings. Labels, types and property keys are left open: graphanon creates them.
const schemaBase = {
  procedures: testData.mockSchema.procedures,
  functions: testData.mockSchema.functions,
  defaultLanguage: VERSION,
};

function render(name, identifiers) {
  const text = readFileSync(join(cypherDir, `${name}.cypher`), "utf8");
  const lines = text.split(/\r?\n/).filter((line) => !line.trimStart().startsWith("//"))
    .map((line) => line.trimEnd()).filter((line) => line);
  const body = lines.join("\n").trim();
  const used = new Set();
  const out = body.replace(/\{([a-z_][a-z0-9_]*)\}/g, (_, key) => {
    if (!(key in identifiers)) throw new Error(`${name}: no identifier for {${key}}`);
    const value = identifiers[key];
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(value)) {
      throw new Error(`${name}: identifier ${JSON.stringify(value)} is not safe`);
    }
    used.add(key);
    return "`" + value + "`";
  });
  const extra = Object.keys(identifiers).filter((k) => !used.has(k));
  if (extra.length) throw new Error(`${name}: identifiers ${extra} have no placeholder`);
  return out;
}

// Problems of one statement linted with `parameters`: linter diagnostics (errors and
// warnings), and parameters passed but never used.
function problems(query, parameters) {
  const { diagnostics } = lintCypherQuery(query, { ...schemaBase, parameters });
  const out = diagnostics.map((d) => ({
    severity: d.severity === 1 ? "error" : "warning",
    message: d.message.split("\n")[0],
    offset: d.offsets?.start,
  }));
  const referenced = new Set(parseParameters(query, false));
  for (const name of Object.keys(parameters)) {
    if (!referenced.has(name)) {
      out.push({ severity: "error", message: `parameter $${name} is passed but never used` });
    }
  }
  return out;
}

let manifest;
try {
  manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
} catch (err) {
  console.error(`lint_cypher: cannot read ${manifestPath}: ${err.message}`);
  process.exit(2);
}

let failed = 0;
let errors = 0;
let warnings = 0;
const covered = new Set();
for (const entry of manifest.statements) {
  const label = `${entry.name}(${Object.entries(entry.identifiers).map(([k, v]) => `${k}=${v}`)
    .join(", ")}) [${Object.keys(entry.parameters).map((p) => "$" + p).join(" ")}]`;
  let query;
  try {
    query = render(entry.name, entry.identifiers);
  } catch (err) {
    console.log(`FAIL ${label}: ${err.message}`);
    failed += 1;
    continue;
  }
  covered.add(entry.name);
  if (query !== entry.query) {
    console.log(`FAIL ${label}: the file renders differently from what the code sent `
      + "(regenerate scripts/cypher_calls.json: GRAPHANON_UPDATE_CYPHER_CALLS=1 pytest "
      + "tests/io/neo4j/test_neo4j_cypher.py)");
    failed += 1;
    continue;
  }
  const found = problems(query, entry.parameters);
  for (const p of found) {
    if (p.severity === "error") errors += 1; else warnings += 1;
    console.log(`${p.severity.toUpperCase()} ${label}: ${p.message}`);
  }
  if (found.length) failed += 1;
}

const files = readdirSync(cypherDir).filter((f) => f.endsWith(".cypher"))
  .map((f) => f.slice(0, -".cypher".length)).sort();
const uncovered = files.filter((f) => !covered.has(f));
for (const name of uncovered) {
  console.log(`FAIL ${name}: no call of this statement in scripts/cypher_calls.json`);
  failed += 1;
}

// Known-bad statements: each must be caught, else the linter (or its setup) lost its teeth.
const write = manifest.statements.find((e) => e.name === "write_nodes");
const KNOWN_BAD = [
  ["syntax error", "MATCH (r:`AnonRelease` {release_id: $release_id}) RETRUN r", { release_id: "s" }],
  ["undefined variable", "MATCH (r:`AnonRelease` {release_id: $release_id}) SET x.status = 'complete'",
    { release_id: "s" }],
  ["parameter the call site does not pass", write.query,
    Object.fromEntries(Object.entries(write.parameters).filter(([k]) => k !== "rows"))],
  ["parameter passed but never used", write.query, { ...write.parameters, batch_size: 1 }],
  ["deprecated id()", "MATCH (n:`AnonNode`) RETURN id(n) AS id", {}],
  ["unknown procedure", "CALL db.awaitIndexs($index_name)", { index_name: "s" }],
  ["procedure arity", "CALL db.awaitIndex($index_name, $timeout_seconds, 1)",
    { index_name: "s", timeout_seconds: 1 }],
  ["Cypher 25 syntax under Cypher 5", "MATCH (n:`AnonNode`) FILTER n.uid IS NOT NULL RETURN n", {}],
  ["CALL subquery without a scope clause", "MATCH (n:`AnonNode` {release_id: $release_id}) "
    + "CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 10 ROWS", { release_id: "s" }],
];
let caught = 0;
for (const [what, query, parameters] of KNOWN_BAD) {
  const found = problems(query, parameters);
  if (found.length) {
    caught += 1;
    console.log(`caught known-bad (${what}): ${found[0].message}`);
  } else {
    console.log(`FAIL known-bad statement not caught (${what}): ${query}`);
    failed += 1;
  }
}

console.log(`@neo4j-cypher/language-support ${pkg.version}, ${VERSION}, node ${process.version}: `
  + `linted ${manifest.statements.length} rendered statements from ${covered.size} of `
  + `${files.length} files: ${errors} errors, ${warnings} warnings; `
  + `${caught} of ${KNOWN_BAD.length} known-bad statements caught`);
process.exit(failed ? 1 : 0);
