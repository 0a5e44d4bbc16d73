MATCH (r:AnonRelease)
RETURN r.release_id AS release_id, r.status AS status, r.kind AS kind,
       r.mechanism AS mechanism, r.neighbourhood AS neighbourhood, r.epsilon AS epsilon,
       r.k AS k, r.dataset AS dataset, r.created_at AS created_at,
       r.completed_at AS completed_at, r.n_nodes AS n_nodes,
       r.n_relationships AS n_relationships, r.n_statistics AS n_statistics
ORDER BY r.started_at, r.release_id
