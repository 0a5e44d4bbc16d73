// Starts one write attempt, first statement of its transaction. MERGE creates the record if
// it is missing (status null) but takes no lock on an existing one, so the SET takes the
// record's write lock *before* anything is read: the status, token and charge id returned
// are current, and stay so until the transaction ends. The caller's guard decides on them
// (an identical complete release: nothing to do; a complete release of other content: refused
// unless replacing), then claim_release_write records the attempt in the same transaction.
MERGE (r:AnonRelease {release_id: $release_id})
SET r.graphanon_lock = true
REMOVE r.graphanon_lock
RETURN r.status AS previous_status, r.write_token AS previous_token,
       r.charge_id AS previous_charge_id,
       r {.written_nodes, .written_relationships, .written_statistics, .written_masked}
         AS previous_counts
