// Last statement of the completing transaction (after ledger_lock and lock_release):
// pending -> complete, only for the attempt that still holds the record's token.
// $counts are the counts of released rows the database confirmed (written_nodes, ...);
// $epsilon_charged the ε the ledger charged under the budget's neighbourhood (null: none).
MATCH (r:AnonRelease {release_id: $release_id, status: 'pending', write_token: $write_token})
SET r += $counts, r.status = 'complete', r.epsilon_charged = $epsilon_charged
REMOVE r.write_token
RETURN r.release_id AS release_id
