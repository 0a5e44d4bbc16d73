// First statement of the completing transaction: the SET takes the budget node's write
// lock, so concurrent releases against one dataset are serialized (no lost update).
MATCH (b:PrivacyBudget {dataset: $dataset})
SET b.locked_by = $release_id
WITH b
OPTIONAL MATCH (c:PrivacyCharge {charge_id: $charge_id})
RETURN b.epsilon_total AS epsilon_total, b.epsilon_spent AS epsilon_spent,
       b.neighbourhood AS neighbourhood, c IS NOT NULL AS already_charged
