// Placeholder: {label} (AnonNode, AnonUser or AnonFeature). One batch of $rows, after
// lock_release in the same transaction; the caller checks that the summary's
// nodes_created equals the number of rows.
UNWIND $rows AS row
CREATE (n:{label} {release_id: $release_id, uid: row.uid})
SET n += row.properties
