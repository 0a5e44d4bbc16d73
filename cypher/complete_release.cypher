// Last statement of the completing transaction (after ledger_lock, lock_release and the
// charge): the flip. Only for the attempt that still holds the record's token, the record
// takes this attempt's $properties and confirmed $counts, status "complete" and
// current_attempt = this attempt's token, so readers move from the previous attempt's rows to
// this one's in one commit; SET r = ... also removes the token. $epsilon_charged is the ε the
// ledger charged under the budget's neighbourhood (null: none). Rows of earlier attempts are
// removed after the commit (delete_release_*, in batches).
MATCH (r:AnonRelease {release_id: $release_id, write_token: $write_token})
SET r = $properties, r += $counts, r.release_id = $release_id, r.status = 'complete',
    r.current_attempt = $write_token, r.epsilon_charged = $epsilon_charged
RETURN r.release_id AS release_id
