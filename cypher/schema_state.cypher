// Whether the schema a write relies on is in place and online (a write creates it only when
// it is not: schema statements run once per database, by `graphanon neo4j init` or the first
// write). A constraint's backing index carries the constraint's name.
SHOW INDEXES YIELD name, state
WHERE name IN $names
RETURN name, state
