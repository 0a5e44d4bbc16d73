// Starts one write attempt: creates the record, or resets an existing one, to status
// "pending" with this attempt's random $write_token. Every later transaction of the attempt
// starts with lock_release and goes on only while the record still holds its token, so a
// later attempt that resets the record makes this one fail before it writes anything more.
// The previous status, token and charge id are returned: the caller refuses (and so rolls
// back) replacing a complete release of other content unless told to replace it.
MERGE (r:AnonRelease {release_id: $release_id})
WITH r, r.status AS previous_status, r.write_token AS previous_token,
     r.charge_id AS previous_charge_id
SET r = $properties, r.release_id = $release_id, r.status = 'pending',
    r.write_token = $write_token
RETURN previous_status, previous_token, previous_charge_id
