// One batch of the delete phase, in a managed write transaction after lock_release.
// Placeholder: {label} (AnonNode, AnonUser or AnonFeature). Relationships go first
// (delete_release_relationships), so a batch stays small. The uid predicate lets the
// composite (release_id, uid) index serve the lookup.
MATCH (n:{label} {release_id: $release_id})
WHERE n.uid IS NOT NULL
WITH n LIMIT $batch_size
DETACH DELETE n
