// Read-only budget check before anything is written (the authoritative check is repeated
// under a lock in the transaction that completes the release).
OPTIONAL MATCH (b:PrivacyBudget {dataset: $dataset})
OPTIONAL MATCH (c:PrivacyCharge {charge_id: $charge_id})
RETURN b IS NOT NULL AS found, b.epsilon_total AS epsilon_total,
       b.epsilon_spent AS epsilon_spent, b.neighbourhood AS neighbourhood,
       c IS NOT NULL AS already_charged
