// Waits until the named index is online (a new index populates in the background); run
// before the first batch of a write, for every index the write relies on.
CALL db.awaitIndex($index_name, $timeout_seconds)
