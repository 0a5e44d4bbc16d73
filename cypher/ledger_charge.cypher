// Sequential composition: the ledger spends the release's ε, recorded as one charge.
MATCH (b:PrivacyBudget {dataset: $dataset})
CREATE (c:PrivacyCharge {charge_id: $charge_id, dataset: $dataset, release_id: $release_id,
                         mechanism: $mechanism, epsilon: $epsilon, charged_at: $charged_at})
CREATE (c)-[:CHARGED_TO]->(b)
SET b.epsilon_spent = b.epsilon_spent + $epsilon, b.updated_at = $charged_at
REMOVE b.locked_by
