// Creates or resets the release record to status "pending" before any release data is
// written: an interrupted run never leaves a record that looks complete.
MERGE (r:AnonRelease {release_id: $release_id})
SET r = $properties, r.release_id = $release_id, r.status = 'pending',
    r.started_at = $started_at
RETURN r.release_id AS release_id
