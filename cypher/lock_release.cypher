// First statement of every transaction of a write or drop attempt (each write batch, each
// delete batch, the completing transaction) and of every clean-up batch: the SET takes the
// record's write lock, held until the transaction ends, so the token, status and current
// attempt read after it are current and no other attempt's begin_release can commit in
// between. The marker is removed in the same statement, so nothing is left on the record.
MATCH (r:AnonRelease {release_id: $release_id})
SET r.graphanon_lock = true
REMOVE r.graphanon_lock
RETURN r.write_token AS write_token, r.status AS status, r.current_attempt AS current_attempt
