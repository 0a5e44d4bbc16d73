// One batch of the delete phase, in a managed write transaction after lock_release.
// Placeholder: {label} (DegreeCount, JointDegreeCount or DegreeTupleCount).
MATCH (s:{label} {release_id: $release_id})
WITH s LIMIT $batch_size
DETACH DELETE s
