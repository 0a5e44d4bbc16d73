// Clears the lock marker when the release was already charged (identical re-write).
MATCH (b:PrivacyBudget {dataset: $dataset})
REMOVE b.locked_by
