// The release records, for listings. Nothing here is a wall time or an input count:
// created_at is the run's start (from the Release record), written_* count released rows.
MATCH (r:AnonRelease)
RETURN r.release_id AS release_id, r.status AS status, r.kind AS kind,
       r.mechanism AS mechanism, r.neighbourhood AS neighbourhood, r.epsilon AS epsilon,
       r.k AS k, r.dataset AS dataset, r.created_at AS created_at,
       r.written_nodes AS written_nodes, r.written_relationships AS written_relationships,
       r.written_statistics AS written_statistics
ORDER BY r.created_at, r.release_id
