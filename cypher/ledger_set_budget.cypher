// Changes the total ε of an existing budget: the operator's action, logged as a
// PrivacyBudgetChange node (the total before and after, the ε spent then, when). The
// neighbourhood never changes. No row: the dataset has no budget (nothing is created).
MATCH (b:PrivacyBudget {dataset: $dataset})
CREATE (c:PrivacyBudgetChange {dataset: $dataset, epsilon_total_before: b.epsilon_total,
                               epsilon_total: $epsilon_total, epsilon_spent: b.epsilon_spent,
                               changed_at: $now})-[:CHANGED]->(b)
SET b.epsilon_total = $epsilon_total, b.updated_at = $now
RETURN c.epsilon_total_before AS epsilon_total_before, b.epsilon_total AS epsilon_total,
       b.epsilon_spent AS epsilon_spent
