// Placeholder: {label} (DegreeCount, JointDegreeCount or DegreeTupleCount). One batch.
MATCH (r:AnonRelease {release_id: $release_id})
UNWIND $rows AS row
CREATE (r)-[:HAS_STATISTIC]->(s:{label})
SET s = row, s.release_id = $release_id
