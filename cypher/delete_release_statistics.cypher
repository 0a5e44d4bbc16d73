// One batch of a clean-up or of a drop, in a managed write transaction after lock_release.
// Placeholder: {label} (DegreeCount, JointDegreeCount or DegreeTupleCount). Deletes the
// statistics of attempts not in $keep (see delete_release_nodes).
MATCH (s:{label} {release_id: $release_id})
WHERE s.attempt IS NOT NULL AND NOT s.attempt IN $keep
WITH s LIMIT $batch_size
DETACH DELETE s
