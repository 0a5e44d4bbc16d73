// Placeholder: {label} (AnonNode, AnonUser, AnonFeature, DegreeCount, JointDegreeCount or
// DegreeTupleCount). Rows written before staged writes carry no `attempt`: they become the
// attempt 'legacy', so readers (attempt = r.current_attempt), the clean-up and drop-release
// find them again. Idempotent; run by `graphanon neo4j init` in an auto-commit session.
MATCH (n:{label})
WHERE n.release_id IS NOT NULL AND n.attempt IS NULL
CALL (n) {
  SET n.attempt = 'legacy'
} IN TRANSACTIONS OF 10000 ROWS
