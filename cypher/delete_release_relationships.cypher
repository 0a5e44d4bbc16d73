// One batch of the delete phase, in a managed write transaction after lock_release.
// Placeholder: {label} (AnonNode or AnonUser: the start nodes of release relationships).
// The uid predicate lets the composite (release_id, uid) index serve the lookup.
MATCH (a:{label} {release_id: $release_id})-[e:ANON_EDGE|ANON_HAS_FEATURE|ANON_MASKED]->()
WHERE a.uid IS NOT NULL
WITH e LIMIT $batch_size
DELETE e
