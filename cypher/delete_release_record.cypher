// Removes the (:AnonRelease) record itself (drop-release). Ledger charges are kept: ε spent
// on a published release is never refunded.
MATCH (r:AnonRelease {release_id: $release_id})
DETACH DELETE r
RETURN count(r) AS deleted
