// Placeholder: {label} (AnonNode, AnonUser or AnonFeature). One batch of $rows of the attempt
// $attempt (staged: readers see only the record's current_attempt), after lock_release in the
// same transaction; the caller checks that the summary's nodes_created equals the number of
// rows. The writer's own keys are set after the properties, so no property can overwrite them.
UNWIND $rows AS row
CREATE (n:{label})
SET n += row.properties, n.release_id = $release_id, n.attempt = $attempt, n.uid = row.uid
