// Placeholder: {label} (DegreeCount, JointDegreeCount or DegreeTupleCount). One batch, after
// lock_release in the same transaction; the caller checks nodes_created and
// relationships_created against the number of rows (none without the record).
MATCH (r:AnonRelease {release_id: $release_id})
UNWIND $rows AS row
CREATE (r)-[:HAS_STATISTIC]->(s:{label})
SET s = row, s.release_id = $release_id
