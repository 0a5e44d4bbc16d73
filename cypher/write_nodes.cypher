// Placeholder: {label} (AnonNode, AnonUser or AnonFeature). One batch of $rows of the attempt
// $attempt (staged: readers see only the record's current_attempt), after lock_release in the
// same transaction; the caller checks that the summary's nodes_created equals the number of
// rows. SET items apply left to right: the writer's own keys come after the properties, so no
// property can replace them (the sink also refuses properties named like them:
// RESERVED_NODE_PROPERTIES).
UNWIND $rows AS row
CREATE (n:{label})
SET n += row.properties, n.release_id = $release_id, n.attempt = $attempt, n.uid = row.uid
