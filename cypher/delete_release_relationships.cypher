// One batch of a clean-up or of a drop, in a managed write transaction after lock_release.
// Placeholder: {label} (AnonNode or AnonUser: the start nodes of release relationships).
// Deletes the relationships of attempts not in $keep (see delete_release_nodes).
MATCH (a:{label} {release_id: $release_id})-[e:ANON_EDGE|ANON_HAS_FEATURE|ANON_MASKED]->()
WHERE a.attempt IS NOT NULL AND a.uid IS NOT NULL AND NOT a.attempt IN $keep
WITH e LIMIT $batch_size
DELETE e
