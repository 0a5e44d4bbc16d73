// Placeholder: {label} (AnonNode, AnonUser or AnonFeature). One batch of $rows.
UNWIND $rows AS row
CREATE (n:{label} {release_id: $release_id, uid: row.uid})
SET n += row.properties
