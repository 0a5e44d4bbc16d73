// Placeholders: {constraint}, {label}. Backs the sample loaders' MERGE on (n.id): unique, and
// the constraint's index serves the lookup.
CREATE CONSTRAINT {constraint} IF NOT EXISTS FOR (n:{label}) REQUIRE n.id IS UNIQUE
