// A complete release written before staged writes has no current_attempt: its rows are the
// attempt 'legacy' (migrate_legacy_rows), which becomes current. A pending one stays pending
// (its next write replaces it). Idempotent; run by `graphanon neo4j init`. Returns how many
// records were migrated.
MATCH (r:AnonRelease)
WHERE r.status = 'complete' AND r.current_attempt IS NULL
SET r.current_attempt = 'legacy'
RETURN count(r) AS migrated
