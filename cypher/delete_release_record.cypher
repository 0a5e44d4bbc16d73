// Ends an attempt that completes nothing, after its rows are gone: a drop (status
// "dropping"), or a write refused by the final budget check. The attempt's token is removed;
// a record that holds no complete release is deleted (ledger charges are kept: ε spent on a
// published release is never refused), a complete one stays exactly as it was.
MATCH (r:AnonRelease {release_id: $release_id, write_token: $write_token})
REMOVE r.write_token
WITH r
WHERE r.status <> 'complete'
DETACH DELETE r
RETURN count(*) AS deleted
