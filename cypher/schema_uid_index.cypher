// Placeholders: {index}, {label} (AnonNode, AnonUser or AnonFeature). A uid is unique within
// one attempt of a release (the rows of two attempts coexist until the earlier one is removed
// after the flip). The constraint's index looks up (release_id, attempt, uid) while
// relationships are written; with IS NOT NULL predicates it also serves lookups by release_id
// alone (clean-up and drop), so these labels need no single-property release_id index.
CREATE CONSTRAINT {index} IF NOT EXISTS
FOR (n:{label}) REQUIRE (n.release_id, n.attempt, n.uid) IS UNIQUE
