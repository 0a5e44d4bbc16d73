// Placeholder: {label}. Loads sample SOURCE data (scripts/neo4j_load_sample.py); never used
// on release data. MERGE keeps a re-load idempotent.
UNWIND $rows AS row
MERGE (n:{label} {id: row.id})
SET n += row.properties
