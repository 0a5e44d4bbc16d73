// Creates the ledger of a dataset or sets its total ε explicitly. $neighbourhood ("edge" or
// "node") is the relation the budget is stated for.
MERGE (b:PrivacyBudget {dataset: $dataset})
ON CREATE SET b.epsilon_spent = 0.0, b.created_at = $now
SET b.epsilon_total = $epsilon_total, b.neighbourhood = $neighbourhood, b.updated_at = $now
RETURN b.epsilon_total AS epsilon_total, b.epsilon_spent AS epsilon_spent
