// drop-release, after the data is gone: removes the (:AnonRelease) record if the dropping
// attempt still holds it. Ledger charges are kept: ε spent on a published release is never
// refunded.
MATCH (r:AnonRelease {release_id: $release_id, write_token: $write_token})
DETACH DELETE r
RETURN count(*) AS deleted
