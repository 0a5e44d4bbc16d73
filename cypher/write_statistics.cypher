// Placeholder: {label} (DegreeCount, JointDegreeCount or DegreeTupleCount). One batch of the
// attempt $attempt, after lock_release in the same transaction; the caller checks
// nodes_created and relationships_created against the number of rows (none without the
// record). The writer's own keys are set after the row.
MATCH (r:AnonRelease {release_id: $release_id})
UNWIND $rows AS row
CREATE (r)-[:HAS_STATISTIC]->(s:{label})
SET s = row, s.release_id = $release_id, s.attempt = $attempt
