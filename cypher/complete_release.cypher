// Last statement of the completing transaction: pending -> complete.
MATCH (r:AnonRelease {release_id: $release_id, status: 'pending'})
SET r += $counts, r.status = 'complete', r.completed_at = $completed_at
RETURN r.release_id AS release_id
