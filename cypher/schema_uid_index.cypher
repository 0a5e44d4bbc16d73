// Placeholders: {index}, {label} (AnonNode, AnonUser or AnonFeature). Looks up
// (release_id, uid) while relationships are written; with a `uid IS NOT NULL` predicate it
// also serves lookups by release_id alone (the delete phase), so these labels need no
// single-property release_id index.
CREATE INDEX {index} IF NOT EXISTS FOR (n:{label}) ON (n.release_id, n.uid)
