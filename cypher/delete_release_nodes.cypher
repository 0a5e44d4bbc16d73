// One batch of a clean-up or of a drop, in a managed write transaction after lock_release.
// Placeholder: {label} (AnonNode, AnonUser or AnonFeature). Deletes rows of attempts not in
// $keep (the release's current attempt and the attempt staging now, read under the lock;
// empty for a drop). Relationships go first (delete_release_relationships), so a batch stays
// small. The IS NOT NULL predicates let the (release_id, attempt, uid) constraint's index
// serve the lookup.
MATCH (n:{label} {release_id: $release_id})
WHERE n.attempt IS NOT NULL AND n.uid IS NOT NULL AND NOT n.attempt IN $keep
WITH n LIMIT $batch_size
DETACH DELETE n
